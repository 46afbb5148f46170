#include "cli/option_checks.h"

#include <cmath>
#include <string>

#include "core/errors.h"

namespace tt {

void CheckCount(std::string_view option, int64_t value, int64_t max) {
  if (value < 1 || value > max)
    throw UserError(std::string(option) + " must be a whole number from 1 to " + std::to_string(max));
}

void CheckSeconds(std::string_view option, double value, bool zero_allowed, double max) {
  const bool low = zero_allowed ? value < 0 : value <= 0;
  if (!std::isfinite(value) || low || value > max)
    throw UserError(std::string(option) + " must be a number of seconds " + (zero_allowed ? "from 0" : "above 0") +
                    " to " + std::to_string(static_cast<int64_t>(max)));
}

}  // namespace tt
