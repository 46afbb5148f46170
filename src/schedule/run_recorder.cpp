#include "schedule/run_recorder.h"

#include "history/timestamp.h"
#include "warmstart/flow.h"

namespace tt {

std::optional<TaskBest> HistoryBest(const TrialHistory& store, const TaskIds& ids) {
  const auto best = store.Best(ids);
  if (!best) return std::nullopt;
  return TaskBest{best->config_key, best->result.time_s, best->result.gflops};
}

size_t SeedFromHistory(TuningTask& task, const TrialHistory& store, const TaskIds& ids, bool retry_transient) {
  task.NoteBest(HistoryBest(store, ids));
  return task.Seed(TaskHistory(store, ids, task.space(), retry_transient));
}

RunRecorder::RunRecorder(TrialHistory& store, const TaskIds& ids, const RunInfo& info)
    : store_(store), ids_(ids), run_id_(store.BeginRun(ids, info)), batch_started_(UtcNowIso8601()) {}

std::vector<Config> RunRecorder::Claim(const TuningTask& task, const std::vector<Config>& batch) {
  std::vector<std::string> keys;
  for (const Config& c : batch) keys.push_back(task.space().Key(c));
  const std::vector<bool> claimed = store_.Claim(run_id_, ids_, keys);
  std::vector<Config> mine;
  for (size_t i = 0; i < batch.size(); ++i)
    if (claimed[i]) mine.push_back(batch[i]);
  return mine;
}

void RunRecorder::Record(const TuningTask& task, const std::vector<Config>& configs,
                         const std::vector<MeasureResult>& results) {
  const std::string finished = UtcNowIso8601();
  std::vector<TrialRecord> records;
  for (size_t i = 0; i < results.size(); ++i)
    records.push_back({task.space().Key(configs[i]), task.space().ToJson(configs[i]), results[i], run_id_,
                       batch_number_, batch_started_, finished});
  if (!records.empty()) store_.RecordBatch(run_id_, ids_, records);
  ++batch_number_;
  batch_started_ = finished;
}

void RunRecorder::End(std::string_view status, std::string_view error) {
  store_.ReleaseClaims(run_id_);
  store_.EndRun(run_id_, status, error);
}

}  // namespace tt
