#pragma once
// The tuning history: every measured config of every run, in one SQLite database that
// several processes may share. The only place that talks to SQLite.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"
#include "history/trial_history.h"

namespace SQLite {
class Database;
}

namespace tt {

// A `tune-network` run as recorded; the same command again finds it by its resume key.
struct NetworkRunInfo {
  std::string network;
  int64_t batch = 1;
  std::string scheduler;
  std::string sketch_policy;
  std::string tuner;
  uint64_t seed = 0;
  int64_t trials_requested = 0;
  std::string resume_key;
  std::string command;
};

struct NetworkTaskRow {
  int64_t workload_id = 0;
  int64_t weight = 1;
  std::string layers;
  std::optional<double> default_time_s;  // read back on resume
};

// Trials measured elsewhere (an AutoTVM log, a Kernel Tuner cache file, another database)
// for one task; the device is usually marked imported.
struct ImportedTask {
  Workload workload;
  double flops = 0;
  TemplateRef kernel_template;
  DeviceInfo device;
  std::vector<TrialRecord> trials;
  std::string space_json{};  // a user-defined kernel's knobs; empty for built-in templates
};

// A user-defined kernel (an imported Kernel Tuner space) and the workloads it has trials of.
struct UserSpaceRecord {
  TemplateRef kernel_template;
  std::string space_json;
  std::vector<Workload> workloads;
};

struct ImportCounts {
  int64_t added = 0;
  int64_t already_present = 0;  // same task and config key as a trial in the database (or earlier in the batch)
};

// A trial with everything needed to write it out on its own.
struct TrialWithTask {
  int64_t trial_id = 0;
  Workload workload;
  double flops = 0;
  TemplateRef kernel_template;
  DeviceInfo device;
  std::string tuner;
  TrialRecord trial;
};

// Which trials to export; empty fields match everything.
struct TrialFilter {
  std::string op;
  std::string workload;  // a workload key, "conv2d:n=1,ci=64,..."
  int64_t run_id = 0;
  std::string device;          // a fragment of the device name
  int64_t network_run_id = 0;  // only trials of the runs of this network run
};

// A network run as the report shows it: what it was, and its estimated latency over trials.
struct NetworkRunSummary {
  int64_t id = 0;
  std::string network, scheduler, sketch_policy, tuner, status;
  int64_t batch = 1, trials_requested = 0;
  double default_latency_s = 0;  // sum of weight x untuned default over tasks whose default is known
  std::vector<std::pair<int64_t, double>> progress;  // (trials so far, estimated latency in s)
};

struct MergeCounts {
  int64_t runs_added = 0;
  int64_t network_runs_added = 0;
  int64_t trials_added = 0;
  int64_t trials_already_present = 0;
};

// Not thread-safe: use one store per thread (each is its own connection).
// Throws UserError from Open, EnvironmentError when the database fails later, and
// std::invalid_argument when a record breaks a schema constraint (nothing of it is written).
class SqliteHistoryStore : public TrialHistory {
 public:
  // Creates a missing database with every migration applied; refuses (UserError, nothing
  // written) a path it cannot create, a file that is not a tensortune database, or one
  // written by a newer tensortune.
  static std::unique_ptr<SqliteHistoryStore> Open(const std::string& path);
  // For the commands that only read (export, report, best, compare): an existing database,
  // opened read-only, so that it can be read on a read-only file system and is never written.
  // One of an older schema is migrated first when it can be (refused, nothing written, when not).
  static std::unique_ptr<SqliteHistoryStore> OpenReadOnly(const std::string& path);
  static int LatestSchemaVersion();  // the number of migrations this build knows
  ~SqliteHistoryStore() override;
  SqliteHistoryStore(const SqliteHistoryStore&) = delete;
  SqliteHistoryStore& operator=(const SqliteHistoryStore&) = delete;

  // Finds or adds the rows of a task. The first values recorded for a workload, template
  // or device win; later calls only look them up.
  TaskIds EnsureTask(const Workload& workload, double flops, const TemplateRef& kernel_template,
                     const DeviceInfo& device);
  int64_t BeginRun(const TaskIds& task, const RunInfo& info) override;
  // Claims configs (by key) for measuring in this run, in one short transaction; returns which
  // were claimed. A config already recorded (not transiently) or claimed by another living
  // process is not, so two processes on one task never measure a config twice.
  std::vector<bool> Claim(int64_t run_id, const TaskIds& task, const std::vector<std::string>& keys) override;
  // One transaction: either every record is written or none; their claims are dropped with it.
  void RecordBatch(int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records) override;
  void ReleaseClaims(int64_t run_id) override;
  bool Retime(const TaskIds& task, const std::string& config_key, const MeasureResult& again) override;
  // status: "finished", "interrupted" or "failed" (then `error` says why).
  void EndRun(int64_t run_id, std::string_view status, std::string_view error = {}) override;

  // The configs of a task that count as measured, oldest first: every final record, and a
  // config that timed out in two runs (taken as hanging). Configs whose only records are
  // transient failures are left out, so a later run measures them again; with
  // `retry_transient` the twice-timed-out ones are left out too.
  std::vector<MeasuredConfig> MeasuredConfigs(const TaskIds& task, bool retry_transient = false) const override;

  // One transaction for every task: a trial whose task already has its config key is left
  // out; each task with anything new gets one finished run (tuner "import", command
  // `source`). Counts are per task, in order.
  std::vector<ImportCounts> Import(const std::vector<ImportedTask>& tasks, const std::string& source);
  // Copies the runs and trials of other tensortune databases (same schema version), with
  // devices, workloads and templates unified by their unique keys; a run already here (same
  // task, tuner, seed and start time) and a trial whose task already has its config key are
  // left out. Every file is checked first (UserError, nothing written); then one transaction
  // per file. The others are only read.
  MergeCounts MergeFrom(const std::vector<std::string>& other_paths);
  // Throws UserError unless `path` is a tensortune database this build can merge from.
  static void CheckMergeSource(const std::string& path);
  std::vector<TrialWithTask> TrialsWithTasks(const TrialFilter& filter) const;  // oldest first
  // The same, one at a time as SQLite steps to them (for output of any size in little memory).
  void ForEachTrialWithTask(const TrialFilter& filter, const std::function<void(const TrialWithTask&)>& each) const;
  // Records the knobs of a user-defined kernel's template (a user's kernel tuned here, as for
  // an imported Kernel Tuner cache); the first recorded for a template stays.
  void EnsureUserSpace(int64_t template_id, const std::string& space_json);
  // The user-defined kernels of this name, oldest first.
  std::vector<UserSpaceRecord> UserSpaces(const std::string& name) const;

  std::vector<TrialRecord> Trials(const TaskIds& task) const;           // every run, oldest first
  std::optional<TrialRecord> Best(const TaskIds& task) const override;  // fastest ok trial
  int64_t CountTrials(int64_t run_id) const;

  // For the readers in history/ (history_queries.h); SQLiteCpp types stay in this folder.
  SQLite::Database& connection() const { return *db_; }
  const std::string& path() const { return path_; }

  // The devices on which this workload and template (same source hash) have trials, with
  // their task ids: what a replay can draw on. Nothing is added to the database.
  std::vector<std::pair<TaskIds, DeviceInfo>> RecordedTasks(const Workload& workload,
                                                            const TemplateRef& kernel_template) const override;
  // Reads of other workloads (history_queries.h).
  std::vector<int64_t> TemplateVersions(const std::string& name, const std::string& knob_schema,
                                        const std::string& source_hash) const override;
  std::vector<RecordedWorkload> WorkloadsWithOkTrials(const std::string& op, const HistoryScope& scope) const override;
  std::vector<LeanTrial> FastestTrials(int64_t workload_id, const HistoryScope& scope, int64_t limit) const override;

  // Network runs (history/network_runs.cpp). Begin finds the unfinished run with the same
  // resume key on this device and continues it (resumed = true), else records a new one
  // with its tasks.
  struct NetworkRunStart {
    int64_t id = 0;
    bool resumed = false;
    std::vector<NetworkTaskRow> tasks;
  };
  NetworkRunStart BeginNetworkRun(int64_t device_id, const NetworkRunInfo& info,
                                  const std::vector<NetworkTaskRow>& tasks);
  void SetDefaultTime(int64_t network_run_id, int task_index, double time_s);
  void SetTaskSketch(int64_t network_run_id, int task_index, const std::string& sketch, const std::string& reason);
  // The config the first round gave the task, where it came from, and whether the task still has
  // no measured config (it then runs that config unmeasured).
  void SetFirstConfig(int64_t network_run_id, int task_index, const std::string& config, const std::string& source,
                      bool unmeasured);
  int64_t NetworkTrialsUsed(int64_t network_run_id) const;  // trials of every run linked to it
  void RecordNetworkProgress(int64_t network_run_id, int64_t trials, double latency_s);
  void EndNetworkRun(int64_t network_run_id, std::string_view status, std::string_view error = {});
  std::vector<NetworkRunSummary> NetworkRuns(int64_t only_id = 0) const;  // 0: every one, oldest first

 private:
  SqliteHistoryStore(std::string path, std::unique_ptr<SQLite::Database> db);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace tt
