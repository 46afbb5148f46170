#pragma once
// The registries (tuners, task schedulers, sketch selectors) are constant tables of entries
// with a `name`: looked up here, an unknown name refused with the known ones, and listed in
// table order, which the command line's help reads.
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.h"

namespace tt {

template <typename Table>
std::vector<std::string> NamesOf(const Table& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

// Throws UserError "unknown <what> '<name>' (known: a, b, c)".
template <typename Table>
const auto& FindNamed(const Table& table, std::string_view what, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry;
  std::string known;
  for (const auto& n : NamesOf(table)) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown " + std::string(what) + " '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace tt
