#pragma once
// The one --seed option of every command that takes a seed.
#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace tt {

// Why `text` is no seed ("" when it is one). A seed is stored as SQLite's signed 64-bit integer:
// 0 to 2^63 - 1, in decimal. Checked on the text, because a conversion to uint64_t saturates
// (and wraps negative numbers) silently.
std::string CheckSeed(const std::string& text);

// Adds --seed to `cmd`, checked by CheckSeed (bad input: exit 2).
void AddSeedOption(CLI::App& cmd, uint64_t& seed, const std::string& description = "Random seed");

}  // namespace tt
