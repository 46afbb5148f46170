#include "warmstart/candidates.h"

#include <algorithm>

namespace tt {

CandidateSearch FindCandidates(const HistoryQueries& queries, const HistoryScope& scope, const Workload& target,
                               const SplitExtents& target_extents, const CandidateOptions& options) {
  CandidateSearch search;
  for (const RecordedWorkload& recorded : queries.WorkloadsWithOkTrials(target.op, scope)) {
    ++search.workloads;
    const auto trials = queries.FastestTrials(recorded.id, scope, options.per_workload);
    search.records_read += static_cast<int64_t>(trials.size());
    // s(h, i) depends on the workloads only: the extents of any one of its configs.
    double score = -1;
    for (const LeanTrial& trial : trials) {
      auto values = ParseConfigKey(trial.config_key);
      if (!values) continue;
      if (score < 0) score = MatchScore(SplitExtentsOf(*values), target_extents);
      const double gamma = Utilisation(*values, target_extents);
      search.records.push_back({recorded.workload, trial.config_key, std::move(*values), trial.gflops, score, gamma,
                                FilterMetric(trial.gflops, gamma, score, options.omega)});
    }
    if (score > search.best_match_score) {
      search.best_match_score = score;
      search.best_match = recorded.workload;
    }
  }
  auto& records = search.records;
  const auto better = [](const RankedRecord& a, const RankedRecord& b) {
    if (a.metric != b.metric) return a.metric > b.metric;
    return a.config_key < b.config_key;  // a stable order for equal metrics
  };
  const size_t keep = std::min(options.limit, records.size());
  std::partial_sort(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(keep), records.end(), better);
  records.resize(keep);
  return search;
}

}  // namespace tt
