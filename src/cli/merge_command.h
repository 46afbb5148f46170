#pragma once
// `tensortune merge`: histories from several machines into one database.
#include <iosfwd>
#include <string>
#include <vector>

namespace tt {

struct MergeOptions {
  std::vector<std::string> sources;
  std::string into;
};

int RunMerge(const MergeOptions& options, std::ostream& out);

}  // namespace tt
