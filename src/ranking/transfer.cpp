#include "ranking/transfer.h"

#include <fmt/format.h>

#include <set>

#include "space/knob_schema.h"

namespace tt {

std::vector<TransferredConfig> TransferConfigs(const TrialHistory& history, const HistoryScope& scope,
                                               const Workload& workload, const ConfigSpace& space, size_t limit) {
  std::vector<TransferredConfig> transferred;
  if (limit == 0) return transferred;
  const CandidateSearch search = FindCandidates(history, scope, workload, TargetExtentsOf(space));
  std::set<std::string> seen;
  for (const RankedRecord& r : search.records) {
    const auto adapted = AdaptConfig(space, r.values);
    if (!adapted) continue;
    // A config the new shape rejects for one knob (too few work-items for its work-group) is
    // still the record's tiles: the nearest valid one carries them over.
    const auto config = adapted->why_invalid ? NearestValidConfig(space, adapted->config) : adapted->config;
    if (!config) continue;
    if (!seen.insert(space.Key(*config)).second) continue;  // two records, one adapted config
    transferred.push_back({*config, r});
    if (transferred.size() >= limit) break;
  }
  return transferred;
}

HistoryScope TransferScope(const TrialHistory& history, const std::string& template_name, const ConfigSpace& space,
                           const std::string& source_hash, int64_t device_id) {
  return {history.TemplateVersions(template_name, KnobSchema(space), source_hash), device_id};
}

std::string DescribeTransfer(const TransferredConfig& t) {
  return fmt::format("{} (match {:.2f}, {:.1f} GFLOPS there)", t.source.workload.Key(), t.source.match_score,
                     t.source.gflops);
}

}  // namespace tt
