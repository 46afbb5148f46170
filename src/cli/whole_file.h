#pragma once
#include <string>

namespace tt {

// Writes `text` to `path` through a temporary beside it, so that `path` is either left as it
// was or holds all of `text`. Throws UserError when it cannot be written.
void WriteWholeFile(const std::string& path, const std::string& text);

}  // namespace tt
