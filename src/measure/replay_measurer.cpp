#include "measure/replay_measurer.h"

namespace tt {

std::vector<MeasureResult> ReplayMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch) {
  std::vector<MeasureResult> results;
  results.reserve(batch.size());
  for (const Config& config : batch) {
    const auto it = recorded_.find(task.space->Key(config));
    results.push_back(it != recorded_.end()
                          ? it->second
                          : MeasureResult::Failure(MeasureStatus::kCompileError, kNotRecorded));
  }
  return results;
}

}  // namespace tt
