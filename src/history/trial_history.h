#pragma once
// What the tuning engine (schedule/) and the warm starts (warmstart/) read and write of the
// history: a task's runs, claims and trials, the devices a task was recorded on, and the
// fastest trials of other workloads of an operator. SqliteHistoryStore is the database; the
// engine's tests run it on a history held in memory.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"

namespace tt {

// A kernel template as the history knows it: a new source hash is a new template. Versions
// with the same knob schema (names and kinds of its knobs) share warm-start candidates.
struct TemplateRef {
  std::string name;
  std::string op;
  std::string source_hash;
  std::string knob_schema{};  // empty: not known
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
  int64_t network_run_id = 0;  // 0: not part of a network run
};

// What a task's history says of one config, for seeding a tuner: the lean columns only.
struct MeasuredConfig {
  std::string config_key;
  MeasureStatus status = MeasureStatus::kOk;
  double gflops = 0;
  double time_s = 0;
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

struct LeanTrial {
  std::string config_key;
  MeasureStatus status = MeasureStatus::kOk;
  double gflops = 0;  // 0 unless ok
};

struct RecordedWorkload {
  int64_t id = 0;
  Workload workload;
};

// Which trials a cross-workload read covers. device 0 means every device.
struct HistoryScope {
  std::vector<int64_t> template_ids;  // versions of one template (TemplateVersions)
  int64_t device = 0;
};

class TrialHistory {
 public:
  virtual ~TrialHistory() = default;

  // A run of one task: begun (status 'running'), configs claimed before they are measured (a
  // config recorded, not transiently, or claimed by another living run is refused), each
  // batch recorded at once (its claims dropped with it), the rest released, the run ended
  // ("finished", "interrupted" or "failed", then `error` says why).
  virtual int64_t BeginRun(const TaskIds& task, const RunInfo& info) = 0;
  virtual std::vector<bool> Claim(int64_t run_id, const TaskIds& task, const std::vector<std::string>& keys) = 0;
  virtual void RecordBatch(int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records) = 0;
  virtual void ReleaseClaims(int64_t run_id) = 0;
  virtual void EndRun(int64_t run_id, std::string_view status, std::string_view error = {}) = 0;
  // A config's final record timed again (schedule/retime_leaders.h), in one step: it becomes
  // RetimedResult(record, again). False, nothing written, when the task has no final record of
  // the key or there is nothing to change.
  virtual bool Retime(const TaskIds& task, const std::string& config_key, const MeasureResult& again) = 0;

  // What a task's tuner starts from: the configs that count as measured, oldest first (every
  // final record, and a config that timed out in two runs unless `retry_transient`), and the
  // fastest ok trial.
  virtual std::vector<MeasuredConfig> MeasuredConfigs(const TaskIds& task, bool retry_transient = false) const = 0;
  virtual std::optional<TrialRecord> Best(const TaskIds& task) const = 0;

  // The devices on which this workload and template (same source hash) have trials, with
  // their task ids: what a cross-device warm start can draw on.
  virtual std::vector<std::pair<TaskIds, DeviceInfo>> RecordedTasks(const Workload& workload,
                                                                    const TemplateRef& kernel_template) const = 0;

  // Other workloads' records (--tuner auto's flows): the ids of the versions of template
  // `name` recorded with `knob_schema`, plus the version `source_hash` whatever its schema;
  // the workloads of `op` with an ok trial in `scope`, by id; the `limit` fastest ok trials
  // of one of them in `scope`, fastest first.
  virtual std::vector<int64_t> TemplateVersions(const std::string& name, const std::string& knob_schema,
                                                const std::string& source_hash) const = 0;
  virtual std::vector<RecordedWorkload> WorkloadsWithOkTrials(const std::string& op,
                                                              const HistoryScope& scope) const = 0;
  virtual std::vector<LeanTrial> FastestTrials(int64_t workload_id, const HistoryScope& scope, int64_t limit) const = 0;
};

}  // namespace tt
