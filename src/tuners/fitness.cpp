#include "tuners/fitness.h"

#include <algorithm>
#include <numeric>

namespace tt {

double Fitness(const Observation& observation) {
  return observation.status == MeasureStatus::kOk && observation.gflops > 0 ? observation.gflops : 0;
}

size_t PickByFitness(const std::vector<double>& weights, Rng& rng) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (!(sum > 0)) return rng.Below(weights.size());
  double target = rng.Uniform() * sum;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (target < weights[i]) return i;
    target -= weights[i];
  }
  // Rounding can leave target just above the last weight; take the last positive one.
  for (size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return i;
  return 0;
}

std::vector<double> Fitnesses(const std::vector<ScoredConfig>& scored) {
  std::vector<double> fitness;
  fitness.reserve(scored.size());
  for (const auto& s : scored) fitness.push_back(s.fitness);
  return fitness;
}

void DropSeeded(std::deque<Config>& generation, const std::vector<Observation>& history) {
  std::erase_if(generation, [&](const Config& c) {
    return std::any_of(history.begin(), history.end(), [&](const Observation& h) { return h.config == c; });
  });
}

void ScoreMeasured(const ConfigSpace& space, const std::vector<Observation>& measured, UnseenConfigs& unseen,
                   std::vector<ScoredConfig>& observed) {
  for (const auto& m : measured) {
    if (!InSpace(space, m.config)) continue;
    unseen.MarkSeen(m.config);
    observed.push_back({m.config, Fitness(m)});
  }
}

std::vector<Config> TakeBatch(std::deque<Config>& generation, size_t max_size) {
  std::vector<Config> batch;
  while (batch.size() < max_size && !generation.empty()) {
    batch.push_back(std::move(generation.front()));
    generation.pop_front();
  }
  return batch;
}

}  // namespace tt
