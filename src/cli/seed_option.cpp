#include "cli/seed_option.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>

namespace tt {

std::string CheckSeed(const std::string& text) {
  constexpr const char* kMax = "9223372036854775807";
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  std::string trimmed = text.substr(std::min(text.find_first_not_of('0'), text.size() - 1));
  if (!digits || trimmed.size() > std::strlen(kMax) || (trimmed.size() == std::strlen(kMax) && trimmed > kMax))
    return "must be a whole number from 0 to 9223372036854775807";
  return "";
}

void AddSeedOption(CLI::App& cmd, uint64_t& seed, const std::string& description) {
  cmd.add_option("--seed", seed, description + " (0 to 2^63 - 1)")
      ->check(CLI::Validator(CheckSeed, "SEED"))
      ->capture_default_str();
}

}  // namespace tt
