#pragma once
// `tensortune export`: trials of the history as an AutoTVM log, CSV or JSON.
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tt {

struct ExportOptions {
  std::string db;
  std::string format = "autotvm";  // autotvm | csv | json | t4
  std::string op;
  std::string workload;  // a workload key
  int64_t run = 0;
  std::string device;  // a fragment of the device name
  std::string out;     // empty: standard output
};

// The AutoTVM log imports back to the same trials (record for record). Writes `out` whole or
// not at all.
int RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tt
