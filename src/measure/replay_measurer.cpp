#include "measure/replay_measurer.h"

namespace tt {

MeasuredBatch ReplayMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                      const std::atomic<bool>*) {
  MeasuredBatch measured;
  auto& results = measured.results;
  results.reserve(batch.size());
  for (const Config& config : batch) {
    const auto it = recorded_.find(task.space->Key(config));
    results.push_back(it != recorded_.end() ? it->second
                                            : MeasureResult::Failure(MeasureStatus::kCompileError, kNotRecorded));
  }
  return measured;
}

}  // namespace tt
