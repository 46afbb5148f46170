#pragma once
// The guided genetic algorithm of history-based auto-tuning (Algorithm 1). The first
// population is the warm start's candidates (recorded configs of similar workloads, ranked by
// the filtering metric and adapted to this space). Each later generation is bred from parents
// drawn by rank: guided crossover takes one gene from a second parent; guided mutation puts in
// an elite gene (a gene whose change produced one of the elite individuals) or, from
// experience, a split factor that divides the extent (or 2 or 4). No random mutation. The
// parents of the next generation are drawn in proportion to GFLOPS, with the best inserted.
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "tuners/fitness.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct GgaOptions {
  size_t pop_size = 16;
  size_t elite_num = 8;
  double crossover_prob = 0.5;       // else a guided mutation
  double elite_mutation_prob = 0.5;  // of a mutation, when elite genes exist; else expertise

  static const OptionTable<GgaOptions>& Table();
  void Validate() const;  // throws UserError
  // Each key parsed and range-checked (UserError); the constructor validates the whole.
  static GgaOptions Parse(const TunerOptionMap& options);
};

class GgaTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  GgaTuner(const ConfigSpace& space, uint64_t seed, GgaOptions options = {});
  void Seed(const std::vector<Observation>& history) override;
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  using Gene = std::pair<size_t, uint32_t>;  // knob index, value index

  void Breed();
  void SelectParents();
  void CollectEliteGenes();
  std::optional<Config> Offspring(const std::vector<double>& rank_weights);
  std::optional<Config> Crossover(const std::vector<double>& rank_weights, size_t& gene);
  std::optional<Config> MutateElite(const Config& parent, size_t& gene);
  std::optional<Config> MutateExpertise(const Config& parent, size_t& gene);
  void Propose(Config config, std::optional<size_t> gene);

  const ConfigSpace& space_;
  GgaOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  std::vector<ScoredConfig> parents_;           // sorted best first
  std::vector<ScoredConfig> observed_;          // since the last breeding
  std::unordered_map<uint64_t, size_t> genes_;  // flat index -> knob its breeding changed
  std::vector<Gene> elite_genes_;
  std::deque<Config> generation_;  // bred, not proposed yet (marked seen)
};

}  // namespace tt
