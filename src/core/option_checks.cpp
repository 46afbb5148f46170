#include "core/option_checks.h"

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

void CheckShare(std::string_view option, double value) {
  if (!(value >= 0 && value <= 1)) throw UserError(std::string(option) + " must be a number from 0 to 1");
}

void CheckMeasuringTimes(double timeout_s, double min_time_s) {
  CheckSeconds("--timeout", timeout_s, false, kMaxTimeoutSeconds);
  CheckSeconds("--min-time", min_time_s, true, kMaxMinTimeSeconds);
  // Timing alone would outlast the timeout: every configuration would time out.
  if (min_time_s >= timeout_s) throw UserError("--min-time must be shorter than --timeout");
}

}  // namespace tt
