#pragma once
// The tie between a tuning task and the history database: seeding it from what was measured
// before, claiming configs before measuring them, and recording each batch in one transaction.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "history/trial_history.h"
#include "schedule/tuning_task.h"

namespace tt {

// The fastest ok config of the task's history (see MeasuredConfigs).
std::optional<TaskBest> HistoryBest(const TrialHistory& store, const TaskIds& ids);
// Feeds the task's tuner what its history counts as measured and notes its best; returns how
// many configs that was.
size_t SeedFromHistory(TuningTask& task, const TrialHistory& store, const TaskIds& ids, bool retry_transient = false);

class RunRecorder {
 public:
  // Records a new run of the task (status 'running').
  RunRecorder(TrialHistory& store, const TaskIds& ids, const RunInfo& info);

  int64_t run_id() const { return run_id_; }
  const TaskIds& ids() const { return ids_; }
  // The configs of `batch` this run may measure: those not recorded or being measured elsewhere.
  std::vector<Config> Claim(const TuningTask& task, const std::vector<Config>& batch);
  void Record(const TuningTask& task, const std::vector<Config>& configs, const std::vector<MeasureResult>& results);
  void ReleaseClaims() { store_.ReleaseClaims(run_id_); }
  void End(std::string_view status, std::string_view error = {});

 private:
  TrialHistory& store_;
  TaskIds ids_;
  int64_t run_id_;
  int batch_number_ = 0;
  std::string batch_started_;
};

}  // namespace tt
