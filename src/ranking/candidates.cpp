#include "ranking/candidates.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace tt {
namespace {

// A recorded workload with an upper bound of the metric of any of its records: s(h, i) and
// the best GFLOPS are those of the workload, and gamma is at most 1.
struct Bounded {
  const RecordedWorkload* recorded;
  double score;
  double bound;
};

void Rank(std::vector<RankedRecord>& records, size_t limit) {
  const auto better = [](const RankedRecord& a, const RankedRecord& b) {
    if (a.metric != b.metric) return a.metric > b.metric;
    return a.config_key < b.config_key;  // a stable order for equal metrics
  };
  const size_t keep = std::min(limit, records.size());
  std::partial_sort(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(keep), records.end(), better);
  records.resize(keep);
}

}  // namespace

// Two passes, so that a large history is not read whole: the fastest trial of every workload
// gives its match score and a bound of its metrics; then workloads are read in bound order
// until the limit-th best metric found beats every bound left.
CandidateSearch FindCandidates(const TrialHistory& history, const HistoryScope& scope, const Workload& target,
                               const TargetExtents& target_extents, const CandidateOptions& options) {
  CandidateSearch search;
  const std::vector<RecordedWorkload> recorded = history.WorkloadsWithOkTrials(target.op, scope);
  std::vector<Bounded> bounded;
  for (const RecordedWorkload& w : recorded) {
    const auto fastest = history.FastestTrials(w.id, scope, 1);
    ++search.records_read;
    const auto values = fastest.empty() ? std::nullopt : ParseConfigKey(fastest.front().config_key);
    if (!values) continue;
    const double score = RecordMatchScore(w.workload, *values, target, target_extents);
    bounded.push_back({&w, score, fastest.front().gflops * std::pow(score, options.omega)});
    if (score > search.best_match_score) {
      search.best_match_score = score;
      search.best_match = w.workload;
    }
  }
  search.workloads = static_cast<int64_t>(bounded.size());
  std::stable_sort(bounded.begin(), bounded.end(),
                   [](const Bounded& a, const Bounded& b) { return a.bound > b.bound; });

  std::priority_queue<double, std::vector<double>, std::greater<>> kept_metrics;  // the best `limit`
  for (const Bounded& w : bounded) {
    if (options.limit == 0 || (kept_metrics.size() >= options.limit && kept_metrics.top() >= w.bound)) break;
    const auto trials = history.FastestTrials(w.recorded->id, scope, options.per_workload);
    search.records_read += static_cast<int64_t>(trials.size());
    for (const LeanTrial& trial : trials) {
      auto values = ParseConfigKey(trial.config_key);
      if (!values) continue;
      const double gamma = Utilisation(*values, target_extents.exact);
      const double metric = FilterMetric(trial.gflops, gamma, w.score, options.omega);
      search.records.push_back(
          {w.recorded->workload, trial.config_key, std::move(*values), trial.gflops, w.score, gamma, metric});
      kept_metrics.push(metric);
      if (kept_metrics.size() > options.limit) kept_metrics.pop();
    }
  }
  Rank(search.records, options.limit);
  return search;
}

}  // namespace tt
