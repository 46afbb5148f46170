#include "schedule/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/statistics.h"
#include "schedule/budget.h"
#include "schedule/task_loop.h"

namespace tt {

ReplayRun Replay(TuningTask& task, Measurer& measurer, int64_t trials, int64_t batch_size) {
  ReplayRun run;
  double best = 0;
  const auto track = [&](const TuningTask&, const std::vector<Config>&, const std::vector<MeasureResult>& results) {
    for (const auto& r : results) {
      if (r.ok()) best = std::max(best, r.gflops);
      run.best_so_far.push_back(best);
    }
  };
  Budget budget(trials);
  RunTaskLoop(task, measurer, budget, batch_size, nullptr, track);
  run.tuner_seconds = task.tuner_seconds();
  run.model_fit_seconds = task.ModelFitSeconds();
  return run;
}

double BestAt(const ReplayRun& run, int64_t trial) {
  if (run.best_so_far.empty() || trial < 1) return 0;
  return run.best_so_far[std::min<size_t>(static_cast<size_t>(trial), run.best_so_far.size()) - 1];
}

double TrialsToReach(const ReplayRun& run, double target) {
  for (size_t i = 0; i < run.best_so_far.size(); ++i)
    if (run.best_so_far[i] >= target) return static_cast<double>(i + 1);
  return std::numeric_limits<double>::infinity();
}

ReplaySummary SummarizeReplays(const std::vector<ReplayRun>& runs, double best_recorded,
                               const std::vector<int64_t>& checkpoints, const std::vector<double>& targets) {
  ReplaySummary summary;
  for (int64_t c : checkpoints) {
    std::vector<double> pct;
    for (const auto& r : runs) pct.push_back(100 * BestAt(r, c) / best_recorded);
    summary.percent_at.push_back({Quantile(pct, 0.25), Quantile(pct, 0.5), Quantile(pct, 0.75)});
  }
  for (double target : targets) {
    std::vector<double> needed;
    for (const auto& r : runs) needed.push_back(TrialsToReach(r, target * best_recorded));
    const auto reached = std::count_if(needed.begin(), needed.end(), [](double n) { return !std::isinf(n); });
    summary.to_target.push_back({Quantile(needed, 0.5), static_cast<int64_t>(reached)});
  }
  std::vector<double> overhead;
  for (const auto& r : runs) overhead.push_back(1e3 * r.tuner_seconds / std::max<size_t>(r.best_so_far.size(), 1));
  summary.overhead_ms_per_trial = Quantile(overhead, 0.5);
  return summary;
}

}  // namespace tt
