#pragma once
// AutoTVM's genetic algorithm (GATuner): generations of pop_size configs (by default scaled to
// the budget); the next generation
// is bred from the last one plus the elites kept so far, two parents drawn in proportion to
// fitness, then crossed over and mutated knob by knob. Nothing seen before is proposed.
// Crossover is uniform per knob where AutoTVM cuts at one point: knob order is arbitrary, so a
// cut point would tie together knobs that merely sit next to each other. A warm start (Prime)
// puts the best transferred configs into the first generation, in place of random ones.
#include <cstdint>
#include <deque>
#include <optional>

#include "core/rng.h"
#include "tuners/fitness.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct GaOptions {
  // 0: scaled to the budget, a tenth of it from 8 to 100 (100, AutoTVM's, when the budget is
  // unknown): a population of 100 in a budget of 300 spends a third of it on random configs.
  size_t pop_size = 0;
  size_t elite_num = 3;        // best configs kept as parents of the next generations
  double mutation_prob = 0.1;  // per knob: replace the value by a uniformly random one
  size_t budget = 0;           // trials the run expects (tune and compare pass --trials); 0: unknown

  size_t Population() const;  // pop_size, or the one scaled to the budget

  static const OptionTable<GaOptions>& Table();
  void Validate() const;  // throws UserError
  // Each key parsed and range-checked (UserError); the constructor validates the whole.
  static GaOptions Parse(const TunerOptionMap& options);
};

class GaTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  GaTuner(const ConfigSpace& space, uint64_t seed, GaOptions options = {});
  void Seed(const std::vector<Observation>& history) override;
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  // At most what is left of the current generation; breeds the next one when none is left.
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  void Breed();
  std::optional<Config> FirstGeneration();
  Config Crossover(const std::vector<ScoredConfig>& pool, const std::vector<double>& fitness);
  std::optional<Config> MutateToFresh(Config gene);

  const ConfigSpace& space_;
  GaOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  std::vector<ScoredConfig> elites_;
  std::vector<ScoredConfig> observed_;  // since the last breeding
  std::deque<Config> generation_;       // bred, not proposed yet (already marked seen)
  std::deque<Config> warm_;             // the best transferred configs, for the first generation
};

}  // namespace tt
