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

// A kernel template as the history knows it: a new source hash is a new template. Versions
// with the same knob schema (names and kinds of its knobs) share warm-start candidates.
struct TemplateRef {
  std::string name;
  std::string op;
  std::string source_hash;
  std::string knob_schema;  // empty: not known
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

  std::vector<TrialRecord> Trials(const TaskIds& task) const;  // every run, oldest first
  std::optional<TrialRecord> Best(const TaskIds& task) const;  // fastest ok trial
  int64_t CountTrials(int64_t run_id) const;

  // For the readers in history/ (history_queries.h); SQLiteCpp types stay in this folder.
  SQLite::Database& connection() const { return *db_; }
  const std::string& path() const { return path_; }

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
