#pragma once
// One JSON message as text, for the worker protocol and the MPI ranks' messages.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tt {

// One line, no newline. Compiler logs may hold invalid UTF-8 (or a log cut mid-character):
// replaced, never thrown.
inline std::string DumpMessage(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Runs `decode` on the parsed text; any parse or type error means a malformed message.
template <typename Decode>
auto DecodeMessage(std::string_view text, Decode decode) -> std::optional<decltype(decode(nlohmann::json()))> {
  try {
    return decode(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace tt
