#pragma once
#include <string_view>

namespace tt {

// Whether JSON `text` nests arrays and objects deeper than `max_depth` (strings skipped).
// Checked before parsing input, so that no file can exhaust the stack of the recursive
// parts of a JSON library (dump, comparisons).
bool NestsTooDeep(std::string_view text, int max_depth);

}  // namespace tt
