#pragma once
// `tensortune import`: trials recorded by other tools (AutoTVM and TopHub logs) into the
// history database, each target as an imported device.
#include <iosfwd>
#include <string>
#include <vector>

namespace tt {

struct ImportOptions {
  std::vector<std::string> files;
  std::string db;
  bool skip_bad = false;  // import the good records of a file with bad lines
};

// Every file is read and checked before anything is written: a bad line (reported as
// file:line) refuses the whole import (UserError, exit 2) unless skip_bad. Each file is then
// imported in one transaction; records already in the database are not added again.
int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tt
