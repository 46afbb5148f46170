#pragma once
// `tensortune import`: trials recorded by other tools into the history database: AutoTVM
// logs (record formats 0.2 and 0.1, TopHub's packages) and Kernel Tuner cache files (closed
// or open), each target or GPU as an imported device.
#include <iosfwd>
#include <string>
#include <vector>

namespace tt {

struct ImportOptions {
  std::vector<std::string> files;
  std::string db;
  bool skip_bad = false;    // import the good records of a file with bad lines
  std::string device_name;  // the device of Kernel Tuner caches whose device_name is empty
};

// Every file is read and checked before anything is written: a bad record (reported as
// file:line, or file: cache entry 'key') or an unusable file refuses the whole import
// (UserError, exit 2) unless skip_bad. Each file is then
// imported in one transaction; records already in the database are not added again.
int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tt
