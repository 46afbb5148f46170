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

 private:
  const SqliteHistoryStore& store_;
  ReportFilter filter_;
};

}  // namespace tt
