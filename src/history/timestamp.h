#pragma once
#include <string>

namespace tt {

// The current UTC time as ISO-8601 with milliseconds, "2024-05-01T12:34:56.789Z": the
// format of every time in the history, which SQLite's date functions read as it is.
std::string UtcNowIso8601();

}  // namespace tt
