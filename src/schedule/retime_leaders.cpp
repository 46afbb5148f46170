#include "schedule/retime_leaders.h"

#include <algorithm>
#include <tuple>

#include "schedule/run_recorder.h"

namespace tt {

std::vector<std::pair<size_t, std::string>> Leaders(const TrialHistory& store,
                                                    const std::vector<SketchRecords>& sketches, int max_leaders) {
  std::vector<std::tuple<double, size_t, std::string>> ok;
  for (size_t s = 0; s < sketches.size(); ++s)
    for (const MeasuredConfig& m : store.MeasuredConfigs(sketches[s].ids))
      if (m.status == MeasureStatus::kOk && m.time_s > 0) ok.emplace_back(m.time_s, s, m.config_key);
  std::sort(ok.begin(), ok.end());
  std::vector<std::pair<size_t, std::string>> leaders;
  for (const auto& [time_s, sketch, key] : ok) {
    if (static_cast<int>(leaders.size()) >= max_leaders || time_s > kLeaderMargin * std::get<0>(ok.front())) break;
    leaders.emplace_back(sketch, key);
  }
  return leaders;
}

RetimeOutcome RetimeLeaders(TrialHistory& store, Measurer& measurer, const std::vector<SketchRecords>& sketches,
                            const std::vector<std::pair<size_t, std::string>>& leaders, const std::atomic<bool>* stop) {
  std::vector<std::vector<std::string>> keys(sketches.size());  // per sketch, fastest first
  for (const auto& [sketch, key] : leaders) keys.at(sketch).push_back(key);
  RetimeOutcome outcome;
  for (int round = 0; round < kRetimeRounds && !outcome.stopped && outcome.broken.empty(); ++round) {
    std::vector<size_t> order(sketches.size());
    for (size_t s = 0; s < order.size(); ++s) order[s] = round % 2 == 0 ? s : order.size() - 1 - s;
    for (const size_t s : order) {
      std::vector<std::string> batch_keys = keys[s];
      if (round % 2 == 1) std::reverse(batch_keys.begin(), batch_keys.end());
      std::vector<Config> batch;
      for (const std::string& key : batch_keys)
        if (const auto config = sketches[s].task->space().FromKey(key)) batch.push_back(*config);
      if (batch.empty()) continue;
      const MeasuredBatch measured = measurer.Measure(sketches[s].task->measure_task(), batch, stop);
      for (size_t i = 0; i < measured.results.size(); ++i) {
        const MeasureResult& result = measured.results[i];
        const std::string key = sketches[s].task->space().Key(batch[i]);
        ++outcome.measurements;
        if (store.Retime(sketches[s].ids, key, result) && !result.ok()) {
          ++outcome.failed;
          std::erase(keys[s], key);  // a failure now: not timed again
        }
      }
      if (measured.end == MeasuredBatch::End::kStopped) outcome.stopped = true;
      if (measured.end == MeasuredBatch::End::kBrokenEnvironment) outcome.broken = measured.error;
      if (!measured.complete()) break;
    }
  }
  for (const SketchRecords& sketch : sketches) sketch.task->ReplaceBest(HistoryBest(store, sketch.ids));
  return outcome;
}

RetimeOutcome RetimeWithin(TrialHistory& store, Measurer& measurer, const std::vector<SketchRecords>& sketches,
                           int64_t allowance, const std::atomic<bool>* stop) {
  const int64_t most = std::min<int64_t>(kMaxLeaders, allowance / kRetimeRounds);
  if (most < 1) return {};
  const auto leaders = Leaders(store, sketches, static_cast<int>(most));
  if (leaders.empty()) return {};
  return RetimeLeaders(store, measurer, sketches, leaders, stop);
}

}  // namespace tt
