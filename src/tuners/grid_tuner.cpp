#include "tuners/grid_tuner.h"

namespace tt {

GridTuner::GridTuner(const ConfigSpace& space) : unseen_(space) {}

std::vector<Config> GridTuner::NextBatch(size_t max_size) {
  const ConfigSpace& space = unseen_.space();
  // A restricted space walks its own points (in index order too) instead of the whole space.
  const auto* points = space.restriction();
  const uint64_t end = points ? points->size() : space.Size();
  std::vector<Config> batch;
  while (batch.size() < max_size && next_index_ < end) {
    const uint64_t index = points ? (*points)[next_index_] : next_index_;
    ++next_index_;
    Config config = space.FromIndex(index);
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
