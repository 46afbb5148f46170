#include "tuners/grid_tuner.h"

namespace tt {

GridTuner::GridTuner(const ConfigSpace& space) : unseen_(space) {}

std::vector<Config> GridTuner::NextBatch(size_t max_size) {
  const ConfigSpace& space = unseen_.space();
  std::vector<Config> batch;
  while (batch.size() < max_size && next_index_ < space.Size()) {
    Config config = space.FromIndex(next_index_++);
    if (!unseen_.IsFresh(config)) continue;
    unseen_.MarkSeen(config);
    batch.push_back(std::move(config));
  }
  return batch;
}

void GridTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) unseen_.MarkSeen(m.config);
}

}  // namespace tt
