#pragma once
// What `tensortune report` reads, aggregated by SQLite and handed over one task (and one trial)
// at a time, so that a report of any history is written in little memory.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "history/sqlite_history_store.h"

namespace tt {

// Which trials a report covers; empty fields match everything.
struct ReportFilter {
  std::string workload;  // a workload key
  int64_t run_id = 0;
  int64_t network_run_id = 0;  // the trials of this network run's runs
};

// A task (workload x template x device) with trials in the filter.
struct ReportTask {
  TaskIds ids;
  std::string workload, sketch, device;
  bool imported = false;
  int64_t trials = 0, runs = 0;
};

struct ReportBest {
  std::string config_key;
  double time_s = 0, gflops = 0;
};

struct ReportRun {
  int64_t id = 0;
  std::string tuner;
  int64_t trials = 0;
};

// A device and what it can do at best, when known (device_peaks).
struct ReportDevice {
  int64_t id = 0;
  std::string name;
  bool imported = false;
  std::optional<double> peak_gflops, bandwidth_gbs;
  std::string peak_source;
};

struct ReportNetworkRun {
  int64_t id = 0, device_id = 0, batch = 1, trials_requested = 0, trials_used = 0;
  std::string network, device, scheduler, sketch_policy, tuner, status, command;
  std::optional<double> latency_s;  // the last estimated latency recorded
};

// A distinct workload of a network run (network_tasks) with its best time on the run's device.
struct ReportLayer {
  int64_t task_index = 0, weight = 1;
  std::string workload, layers, sketch, sketch_reason, best_sketch;
  double flops = 0;
  std::optional<double> default_time_s, best_time_s;
};

// The estimated latency after a round: trials so far, seconds since the network run started.
struct ReportAnytimePoint {
  int64_t trials = 0;
  double latency_s = 0, seconds = 0;
};

// Where a network run's wall clock went (the network_time_split view, one run at a time).
struct ReportTimeSplit {
  double run_wall_s = 0, measure_wall_s = 0, build_s = 0, first_launch_s = 0, verify_s = 0, timed_s = 0,
         timeout_wall_s = 0;
  int64_t trials = 0, timeouts = 0;
};

// The fastest ok time of a workload on a device, over every template.
struct ReportWorkloadBest {
  std::string workload, device;
  double time_s = 0;
};

class ReportQueries {
 public:
  ReportQueries(const SqliteHistoryStore& store, ReportFilter filter) : store_(store), filter_(std::move(filter)) {}

  // Trials and tasks in the filter.
  std::pair<int64_t, int64_t> Count() const;
  // The tasks in the order of their first trial: those measured more than once in some run
  // (`repeated`), or the others.
  void ForEachTask(bool repeated, const std::function<void(const ReportTask&)>& each) const;
  // The fastest ok trial with a positive time, the first of equals.
  std::optional<ReportBest> Best(const TaskIds& task) const;
  std::vector<std::pair<std::string, int64_t>> StatusCounts(const TaskIds& task) const;  // by status
  std::vector<ReportRun> Runs(const TaskIds& task) const;                                // by id
  // Each trial, oldest first: its run, whether it is ok, its GFLOPS.
  void ForEachTrial(const TaskIds& task, const std::function<void(int64_t run, bool ok, double gflops)>& each) const;

  // The rest reads the network runs (the filter's one, or all) and the devices; in
  // report_queries_network.cpp.
  std::vector<ReportDevice> Devices() const;
  std::vector<ReportNetworkRun> NetworkRuns() const;  // oldest first
  std::vector<ReportLayer> Layers(const ReportNetworkRun& run) const;
  std::vector<ReportAnytimePoint> Anytime(int64_t network_run_id) const;
  ReportTimeSplit TimeSplit(int64_t network_run_id) const;
  std::vector<ReportWorkloadBest> BestPerWorkload() const;  // every workload x device, by workload

 private:
  const SqliteHistoryStore& store_;
  ReportFilter filter_;
};

// A report reads each trial once, in order: a page cache of 1 MiB (SQLite's default is 2)
// costs it no time and keeps its peak memory down.
void LimitPageCacheForReport(const SqliteHistoryStore& store);

// Stores a device's peak (device_peaks) in a writable store. `device`: a device name or
// fingerprint, or empty for the only device of this machine's history; UserError when it names
// none, or when empty and there are several.
void SetDevicePeak(SqliteHistoryStore& store, const std::string& device, std::optional<double> peak_gflops,
                   std::optional<double> bandwidth_gbs);

}  // namespace tt
