#pragma once
// `tensortune report`: one self-contained HTML page of what the history holds.
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tt {

struct ReportOptions {
  std::string db;
  int64_t run = 0;          // only this run's task and trials
  std::string workload;     // only this workload key
  int64_t network_run = 0;  // only this network run: its latency plot and its tasks' trials
  std::string out = "report.html";
};

// Per task (workload, sketch, device): the best configuration and its GFLOPS, the status mix
// of the trials, and the best-so-far convergence of each run as an inline SVG plot; per network
// run, the estimated network latency over trials.
int RunReport(const ReportOptions& options, std::ostream& out);

}  // namespace tt
