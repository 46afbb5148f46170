#include "tuners/gbfs_tuner.h"

#include <algorithm>

#include "core/errors.h"
#include "tuners/fitness.h"
#include "tuners/warm_configs.h"

namespace tt {

const OptionTable<GbfsOptions>& GbfsOptions::Table() {
  static const OptionTable<GbfsOptions> table{
      {"rho", &GbfsOptions::rho, "neighbours measured per expanded config", kAtLeastOne},
      {"random_start", &GbfsOptions::random_start, "start at a random valid config instead of the untiled one"},
  };
  return table;
}

void GbfsOptions::Validate() const { CheckOptionRanges("gbfs", Table(), *this); }

GbfsOptions GbfsOptions::Parse(const TunerOptionMap& options) { return ParseOptionTable("gbfs", Table(), options); }

GbfsTuner::GbfsTuner(const ConfigSpace& space, uint64_t seed, GbfsOptions options)
    : space_(space), options_(options), rng_(seed), unseen_(space) {
  options_.Validate();
}

void GbfsTuner::Seed(const std::vector<Observation>& history) {
  Update(history);
  if (!queue_.empty()) started_ = true;  // continue from the best recorded config
}

void GbfsTuner::Prime(const WarmStart& warm_start) {
  for (Config& config : BestWarmConfigs(space_, warm_start, options_.rho)) warm_.push_back(std::move(config));
}

void GbfsTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) {
    if (!InSpace(space_, m.config)) continue;
    unseen_.MarkSeen(m.config);
    queue_.push({Fitness(m), arrivals_++, m.config});
  }
}

std::optional<Config> GbfsTuner::Start() {
  if (options_.random_start) return unseen_.Random(rng_);
  return UntiledConfig(space_);
}

std::vector<Config> GbfsTuner::FreshNeighbours(const Config& config) const {
  std::vector<Config> fresh;
  for (size_t k = 0; k < space_.num_knobs(); ++k)
    for (uint32_t n : space_.knob(k).neighbours(config[k])) {
      Config neighbour = config;
      neighbour[k] = n;
      if (unseen_.IsFresh(neighbour)) fresh.push_back(std::move(neighbour));
    }
  return fresh;
}

std::vector<Config> GbfsTuner::NextBatch(size_t max_size) {
  std::vector<Config> batch;
  const auto propose = [&](const Config& c) {
    unseen_.MarkSeen(c);
    batch.push_back(c);
  };
  if (!started_) {
    started_ = true;
    while (batch.size() < max_size)
      if (auto warm = TakeFresh(warm_, unseen_))
        propose(*warm);
      else
        break;
    if (!batch.empty()) return batch;  // the search expands the best of them
    const auto start = Start();
    if (start && unseen_.IsFresh(*start)) {
      propose(*start);
      return batch;  // its neighbours wait for its result
    }
  }
  // Expand the best queued configs until rho neighbours (at most max_size) are found.
  const size_t want = std::min(max_size, options_.rho);
  while (batch.size() < want && !queue_.empty()) {
    const Queued best = queue_.top();
    queue_.pop();
    std::vector<Config> fresh = FreshNeighbours(best.config);
    rng_.Shuffle(fresh);
    for (const Config& c : fresh) {
      if (batch.size() == want) {
        queue_.push(best);  // its other neighbours come first next time
        break;
      }
      propose(c);
    }
  }
  // Nothing queued has fresh neighbours left (or no feedback came): restart at random.
  if (batch.empty() && max_size > 0)
    if (const auto restart = unseen_.Random(rng_)) propose(*restart);
  return batch;
}

}  // namespace tt
