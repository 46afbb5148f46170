#pragma once
// The tuning history: every measured config of every run, in one SQLite database that
// several processes may share. The only place that talks to SQLite.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"

namespace SQLite {
class Database;
}

namespace tt {

// A kernel template as the history knows it: a new source hash is a new template.
struct TemplateRef {
  std::string name;
  std::string op;
  std::string source_hash;
};

// Row ids of a task's workload, template and device in one database.
struct TaskIds {
  int64_t workload = 0;
  int64_t kernel_template = 0;
  int64_t device = 0;
  bool operator==(const TaskIds&) const = default;
};

struct RunInfo {
  std::string tuner;
  std::string options_json;  // empty means {}
  uint64_t seed = 0;
  std::string command;
  int64_t trials_requested = 0;
};

struct TrialRecord {
  std::string config_key;
  std::string config_json;
  MeasureResult result;
  int64_t run_id = 0;  // filled when read; RecordBatch takes the run as an argument
  int batch = 0;
  std::string started_at;  // ISO-8601 UTC; empty ones are recorded as the commit time
  std::string finished_at;
};

// Trials measured elsewhere (an AutoTVM log, a Kernel Tuner cache file, another database)
// for one task; the device is usually marked imported.
struct ImportedTask {
  Workload workload;
  double flops = 0;
  TemplateRef kernel_template;
  DeviceInfo device;
  std::vector<TrialRecord> trials;
  std::string space_json;  // a user-defined kernel's knobs; empty for built-in templates
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
  std::string device;    // a fragment of the device name
};

struct MergeCounts {
  int64_t runs_added = 0;
  int64_t trials_added = 0;
  int64_t trials_already_present = 0;
};

// Not thread-safe: use one store per thread (each is its own connection).
// Throws UserError from Open, EnvironmentError when the database fails later, and
// std::invalid_argument when a record breaks a schema constraint (nothing of it is written).
class SqliteHistoryStore {
 public:
  // Creates a missing database with every migration applied; refuses (UserError, nothing
  // written) a path it cannot create, a file that is not a tensortune database, or one
  // written by a newer tensortune.
  static std::unique_ptr<SqliteHistoryStore> Open(const std::string& path);
  static int LatestSchemaVersion();  // the number of migrations this build knows
  ~SqliteHistoryStore();
  SqliteHistoryStore(const SqliteHistoryStore&) = delete;
  SqliteHistoryStore& operator=(const SqliteHistoryStore&) = delete;

  // Finds or adds the rows of a task. The first values recorded for a workload, template
  // or device win; later calls only look them up.
  TaskIds EnsureTask(const Workload& workload, double flops, const TemplateRef& kernel_template,
                     const DeviceInfo& device);
  int64_t BeginRun(const TaskIds& task, const RunInfo& info);
  // One transaction: either every record is written or none.
  void RecordBatch(int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records);
  // status: "finished", "interrupted" or "failed".
  void EndRun(int64_t run_id, std::string_view status);

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
  // The user-defined kernels of this name, oldest first.
  std::vector<UserSpaceRecord> UserSpaces(const std::string& name) const;

  std::vector<TrialRecord> Trials(const TaskIds& task) const;  // every run, oldest first
  std::optional<TrialRecord> Best(const TaskIds& task) const;  // fastest ok trial
  int64_t CountTrials(int64_t run_id) const;

  // The devices on which this workload and template (same source hash) have trials, with
  // their task ids: what a replay can draw on. Nothing is added to the database.
  std::vector<std::pair<TaskIds, DeviceInfo>> RecordedTasks(const Workload& workload,
                                                            const TemplateRef& kernel_template) const;

 private:
  SqliteHistoryStore(std::string path, std::unique_ptr<SQLite::Database> db);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace tt
