#include "tuners/ga_tuner.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "tuners/warm_configs.h"

namespace tt {
namespace {

// Random single-knob changes tried on a seen or invalid child before a random config replaces it.
constexpr int kMaxRepairs = 1000;

}  // namespace

const OptionTable<GaOptions>& GaOptions::Table() {
  static const OptionTable<GaOptions> table{
      {"pop_size", &GaOptions::pop_size,
       "configs per generation (0: budget/10, 8 to 100; 100 when the budget is unknown)"},
      {"elite_num", &GaOptions::elite_num, "best configs kept as parents of later generations (at most pop_size)"},
      {"mutation_prob", &GaOptions::mutation_prob, "per knob, the chance of a random new value", kProbability},
      {"budget", &GaOptions::budget,
       "trials the run expects (0: unknown); tune, compare and tune-network (per task) set it"},
  };
  return table;
}

void GaOptions::Validate() const {
  CheckOptionRanges("ga", Table(), *this);
  RequirePopulation("ga", Population(), elite_num);
}

size_t GaOptions::Population() const {
  if (pop_size > 0) return pop_size;
  if (budget == 0) return 100;
  return std::clamp<size_t>(budget / 10, 8, 100);
}

GaOptions GaOptions::Parse(const TunerOptionMap& options) {
  return ParseOptionTable("ga", Table(), options);  // the tuner validates the whole
}

GaTuner::GaTuner(const ConfigSpace& space, uint64_t seed, GaOptions options)
    : space_(space), options_(options), rng_(seed), unseen_(space) {
  options_.Validate();
}

void GaTuner::Seed(const std::vector<Observation>& history) {
  Update(history);
  // A config bred before it was seeded must not be proposed now.
  DropSeeded(generation_, history);
}

void GaTuner::Prime(const WarmStart& warm_start) {
  for (Config& config : BestWarmConfigs(space_, warm_start, options_.Population())) warm_.push_back(std::move(config));
}

void GaTuner::Update(const std::vector<Observation>& measured) { ScoreMeasured(space_, measured, unseen_, observed_); }

std::vector<Config> GaTuner::NextBatch(size_t max_size) {
  if (generation_.empty()) Breed();
  return TakeBatch(generation_, max_size);
}

void GaTuner::Breed() {
  std::vector<ScoredConfig> pool = std::move(observed_);
  observed_.clear();
  pool.insert(pool.end(), elites_.begin(), elites_.end());
  std::stable_sort(pool.begin(), pool.end(),
                   [](const ScoredConfig& a, const ScoredConfig& b) { return a.fitness > b.fitness; });
  elites_.assign(pool.begin(), pool.begin() + std::min(options_.elite_num, pool.size()));
  const std::vector<double> fitness = Fitnesses(pool);
  for (size_t i = 0; i < options_.Population(); ++i) {
    // With nothing observed yet (the first generation) the population is the warm start's
    // best configs, then random ones.
    auto child = pool.empty() ? FirstGeneration() : MutateToFresh(Crossover(pool, fitness));
    if (!child) break;  // the space is exhausted
    unseen_.MarkSeen(*child);
    generation_.push_back(std::move(*child));
  }
}

std::optional<Config> GaTuner::FirstGeneration() {
  if (auto warm = TakeFresh(warm_, unseen_)) return warm;
  return unseen_.Random(rng_);
}

// Two distinct parents (when there are two) drawn by fitness; each knob from either one.
Config GaTuner::Crossover(const std::vector<ScoredConfig>& pool, const std::vector<double>& fitness) {
  const size_t first = PickByFitness(fitness, rng_);
  size_t second = first;
  if (pool.size() > 1) {
    std::vector<double> others = fitness;
    others.erase(others.begin() + first);
    second = PickByFitness(others, rng_);
    if (second >= first) ++second;
  }
  Config child = pool[first].config;
  for (size_t k = 0; k < child.size(); ++k)
    if (rng_.Chance(0.5)) child[k] = pool[second].config[k];
  return child;
}

std::optional<Config> GaTuner::MutateToFresh(Config gene) {
  const auto randomise = [&](size_t k) { gene[k] = static_cast<uint32_t>(rng_.Below(space_.knob(k).size())); };
  for (size_t k = 0; k < gene.size(); ++k)
    if (rng_.Chance(options_.mutation_prob)) randomise(k);
  // AutoTVM re-randomises one random knob until the gene is new; bounded here, since a
  // constrained space can make that loop endless.
  for (int i = 0; i < kMaxRepairs && !gene.empty() && !unseen_.IsFresh(gene); ++i) randomise(rng_.Below(gene.size()));
  if (unseen_.IsFresh(gene)) return gene;
  return unseen_.Random(rng_);
}

}  // namespace tt
