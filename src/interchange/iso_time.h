#pragma once
// Unix time <-> the history's ISO-8601 UTC text ("2024-05-01T12:34:56.789Z").
#include <optional>
#include <string>
#include <string_view>

namespace tt {

std::string UnixToIso8601(double seconds);  // millisecond precision; clamps to years 1970..9999
std::optional<double> Iso8601ToUnix(std::string_view text);

}  // namespace tt
