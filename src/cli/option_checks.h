#pragma once
// Range checks of numeric options. CLI11 hands over what it could convert: an over-long
// number arrives clamped to the type's limit, and "nan" or "inf" as a double, so every count
// and every number of seconds is checked here before anything starts.
#include <cstdint>
#include <string_view>

namespace tt {

// Throws UserError unless 1 <= value <= max.
void CheckCount(std::string_view option, int64_t value, int64_t max);
// Throws UserError unless value is finite, in [0, max], and positive when !zero_allowed.
void CheckSeconds(std::string_view option, double value, bool zero_allowed, double max);

}  // namespace tt
