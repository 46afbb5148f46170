#include "tuners/random_tuner.h"

namespace tt {

RandomTuner::RandomTuner(const ConfigSpace& space, uint64_t seed) : rng_(seed), unseen_(space) {}

std::vector<Config> RandomTuner::NextBatch(size_t max_size) {
  std::vector<Config> batch;
  while (batch.size() < max_size) {
    auto config = unseen_.Random(rng_);
    if (!config) break;
    unseen_.MarkSeen(*config);
    batch.push_back(std::move(*config));
  }
  return batch;
}

void RandomTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) unseen_.MarkSeen(m.config);
}

}  // namespace tt
