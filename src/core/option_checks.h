#pragma once
// Range checks of numeric options. CLI11 hands over what it could convert: an over-long
// number arrives clamped to the type's limit, and "nan" or "inf" as a double, so every count
// and every number of seconds is checked here before anything starts.
#include <cstdint>
#include <string_view>

namespace tt {

// Limits shared by every command. More trials than this would take weeks; larger numbers are
// typing mistakes.
constexpr int64_t kMaxTrials = 1'000'000;
constexpr int64_t kMaxBatchSize = 10'000;
constexpr int64_t kMaxNetworkBatch = 65'536;  // a network's batch size (--batch)
constexpr int64_t kMaxSeeds = 10'000;
constexpr double kMaxTimeoutSeconds = 24 * 3600;
constexpr double kMaxMinTimeSeconds = 3600;
constexpr double kMaxTimeLimitSeconds = 365 * 24 * 3600;

// Throws UserError unless 1 <= value <= max.
void CheckCount(std::string_view option, int64_t value, int64_t max);
// Throws UserError unless value is finite, in [0, max], and positive when !zero_allowed.
void CheckSeconds(std::string_view option, double value, bool zero_allowed, double max);
// Throws UserError unless 0 <= value <= 1 (a share, as --retime-share).
void CheckShare(std::string_view option, double value);
// --timeout and --min-time (shorter than the timeout) of a measuring command.
void CheckMeasuringTimes(double timeout_s, double min_time_s);

}  // namespace tt
