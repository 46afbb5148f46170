#pragma once
#include <string>

namespace tt {

// A CSV field as RFC 4180 writes it: quoted (quotes doubled) only when it has to be.
inline std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace tt
