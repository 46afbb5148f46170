#pragma once
// `tensortune report`: one self-contained HTML page of what the history holds.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tt {

struct ReportOptions {
  std::vector<std::string> db;  // one, or two: the second is compared with the first
  std::string compare;          // a database to compare with
  int64_t run = 0;              // only this run's task and trials
  std::string workload;         // only this workload key
  int64_t network_run = 0;      // only this network run: its latency plot and its tasks' trials
  std::string out = "report.html";
  // Stored in the database (device_peaks) before the report is written; `device` picks the
  // device when the history holds several of this machine.
  std::optional<double> peak_gflops, bandwidth_gbs;
  std::string device;
};

// The network runs first (report_network.h), a roofline per device (report_roofline.h), then
// per task (workload, sketch, device), folded: the best configuration and its GFLOPS, the status
// mix of the trials, and the best-so-far convergence of each run as an inline SVG plot.
int RunReport(const ReportOptions& options, std::ostream& out);

}  // namespace tt
