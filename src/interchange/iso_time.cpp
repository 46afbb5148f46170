#include "interchange/iso_time.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace tt {

std::string UnixToIso8601(double seconds) {
  constexpr double kLast = 253402300799.0;  // 9999-12-31T23:59:59Z
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (seconds > kLast) seconds = kLast;
  const auto ms = static_cast<int64_t>(std::llround(seconds * 1000));
  const std::time_t whole = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

std::optional<double> Iso8601ToUnix(std::string_view text) {
  std::tm utc{};
  int ms = 0, used = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &utc.tm_year, &utc.tm_mon, &utc.tm_mday, &utc.tm_hour,
                  &utc.tm_min, &utc.tm_sec, &ms, &used) != 7 ||
      used != static_cast<int>(s.size()))
    return std::nullopt;
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return static_cast<double>(timegm(&utc)) + ms / 1000.0;
}

}  // namespace tt
