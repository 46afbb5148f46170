#include "tuners/opevo_tuner.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "space/q_random_walk.h"
#include "tuners/warm_configs.h"

namespace tt {
namespace {

// Re-mutations of a child that is invalid or seen before falling back to a random config.
constexpr int kMaxMutations = 100;

}  // namespace

const OptionTable<OpEvoOptions>& OpEvoOptions::Table() {
  static const OptionTable<OpEvoOptions> table{
      {"lambda", &OpEvoOptions::parents, "parents kept per generation", kAtLeastOne},
      {"rho", &OpEvoOptions::offspring, "offspring bred per generation", kAtLeastOne},
      {"q", &OpEvoOptions::q, "mutation rate of the q-random walk; nearer 1 walks further",
       OptionRange{0, 1, true, true}},
  };
  return table;
}

void OpEvoOptions::Validate() const { CheckOptionRanges("opevo", Table(), *this); }

OpEvoOptions OpEvoOptions::Parse(const TunerOptionMap& options) { return ParseOptionTable("opevo", Table(), options); }

OpEvoTuner::OpEvoTuner(const ConfigSpace& space, uint64_t seed, OpEvoOptions options)
    : space_(space), options_(options), rng_(seed), unseen_(space) {
  options_.Validate();
}

void OpEvoTuner::Seed(const std::vector<Observation>& history) {
  Update(history);
  seeded_or_proposed_ += history.size();
}

// The first lambda configs: the best transferred ones instead of random ones.
void OpEvoTuner::Prime(const WarmStart& warm_start) {
  for (Config& config : BestWarmConfigs(space_, warm_start, options_.parents)) warm_.push_back(std::move(config));
}

void OpEvoTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) Observe(m);
}

// Keeps only the best lambda: parents are chosen from them alone, so nothing more is needed.
void OpEvoTuner::Observe(const Observation& observation) {
  if (!InSpace(space_, observation.config)) return;  // not of this space: nothing to inherit
  unseen_.MarkSeen(observation.config);
  const auto worse = [](const Parent& a, const Parent& b) {
    if (a.scored.fitness != b.scored.fitness) return a.scored.fitness > b.scored.fitness;
    return a.order < b.order;
  };
  parents_.push_back({{observation.config, Fitness(observation)}, arrivals_++});
  std::push_heap(parents_.begin(), parents_.end(), worse);
  if (parents_.size() > options_.parents) {
    std::pop_heap(parents_.begin(), parents_.end(), worse);
    parents_.pop_back();
  }
}

std::vector<Config> OpEvoTuner::NextBatch(size_t max_size) {
  // Algorithm 1: lambda random configs first (seeded history counts; warm-start configs
  // stand in for random ones), then rho children.
  const bool initial = seeded_or_proposed_ < options_.parents;
  const size_t size = std::min(max_size, initial ? options_.parents - seeded_or_proposed_ : options_.offspring);
  std::vector<Config> batch;
  while (batch.size() < size) {
    auto config = initial ? NextInitial() : NextChild();
    if (!config) break;
    unseen_.MarkSeen(*config);
    batch.push_back(std::move(*config));
  }
  seeded_or_proposed_ += batch.size();
  return batch;
}

std::optional<Config> OpEvoTuner::NextInitial() {
  if (auto warm = TakeFresh(warm_, unseen_)) return warm;
  return unseen_.Random(rng_);
}

std::optional<Config> OpEvoTuner::NextChild() {
  if (parents_.empty()) return unseen_.Random(rng_);  // proposed, but nothing observed yet
  Config child = Recombine();
  for (int i = 0; i < kMaxMutations; ++i) {
    Mutate(child);
    if (unseen_.IsFresh(child)) return child;
  }
  return unseen_.Random(rng_);
}

// Eq. 2: each knob's value comes from one parent, drawn in proportion to fitness.
Config OpEvoTuner::Recombine() {
  std::vector<double> fitness;
  for (const auto& p : parents_) fitness.push_back(p.scored.fitness);
  Config child(space_.num_knobs());
  for (size_t k = 0; k < child.size(); ++k) child[k] = parents_[PickByFitness(fitness, rng_)].scored.config[k];
  return child;
}

void OpEvoTuner::Mutate(Config& config) {
  for (size_t k = 0; k < config.size(); ++k) config[k] = QRandomWalk(space_.knob(k), config[k], options_.q, rng_);
}

}  // namespace tt
