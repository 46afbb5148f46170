#include "tuners/warm_configs.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "space/config_adapt.h"

namespace tt {

std::vector<double> RelativeToSourceBest(const WarmStart& warm_start) {
  std::map<int, double> best;
  for (const TransferSample& s : warm_start.transfer) best[s.source] = std::max(best[s.source], s.gflops);
  std::vector<double> relative;
  relative.reserve(warm_start.transfer.size());
  for (const TransferSample& s : warm_start.transfer)
    relative.push_back(s.gflops > 0 && best[s.source] > 0 ? s.gflops / best[s.source] : 0);
  return relative;
}

std::optional<Config> TakeFresh(std::deque<Config>& queue, const UnseenConfigs& unseen) {
  while (!queue.empty()) {
    Config config = std::move(queue.front());
    queue.pop_front();
    if (unseen.IsFresh(config)) return config;
  }
  return std::nullopt;
}

std::vector<Config> BestWarmConfigs(const ConfigSpace& space, const WarmStart& warm_start, size_t max) {
  std::vector<Config> configs;
  std::unordered_set<uint64_t> taken;
  const auto take = [&](const Config& config) {
    if (configs.size() < max && space.IsValid(config) && taken.insert(space.ToIndex(config)).second)
      configs.push_back(config);
  };
  for (const WarmStartCandidate& candidate : warm_start.candidates)
    if (candidate.config.size() == space.num_knobs()) take(candidate.config);

  const std::vector<double> relative = RelativeToSourceBest(warm_start);
  std::vector<std::pair<double, size_t>> ranked;  // score, sample
  for (size_t i = 0; i < relative.size(); ++i)
    if (relative[i] > 0) ranked.emplace_back(relative[i] * warm_start.transfer[i].similarity, i);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [score, i] : ranked) {
    if (configs.size() >= max) break;
    const auto adapted = AdaptConfig(space, warm_start.transfer[i].values);
    if (adapted && !adapted->why_invalid) take(adapted->config);
  }
  return configs;
}

}  // namespace tt
