#pragma once
// OpEvo (Gao et al., AAAI 2021), Algorithm 1: lambda random configs, then batches of rho
// children of the best lambda configs observed so far, recombined per knob in proportion to
// fitness (eq. 2) and mutated by a q-random walk over each knob's topology (eq. 3). A warm
// start (Prime) replaces the random configs by the best transferred ones.
#include <cstdint>
#include <deque>
#include <optional>

#include "core/rng.h"
#include "tuners/fitness.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct OpEvoOptions {
  size_t parents = 8;    // lambda
  size_t offspring = 8;  // rho
  double q = 0.5;        // mutation rate in (0, 1); nearer 1 walks further (explores more)

  static const OptionTable<OpEvoOptions>& Table();           // keys "lambda", "rho", "q"
  void Validate() const;                                     // throws UserError
  static OpEvoOptions Parse(const TunerOptionMap& options);  // throws UserError
};

class OpEvoTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  OpEvoTuner(const ConfigSpace& space, uint64_t seed, OpEvoOptions options = {});
  void Seed(const std::vector<Observation>& history) override;
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  struct Parent {
    ScoredConfig scored;
    uint64_t order;  // arrival; on equal fitness the earlier config stays a parent
  };
  void Observe(const Observation& observation);
  std::optional<Config> NextInitial();
  std::optional<Config> NextChild();
  Config Recombine();
  void Mutate(Config& config);

  const ConfigSpace& space_;
  OpEvoOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  std::deque<Config> warm_;      // the best transferred configs, proposed first
  std::vector<Parent> parents_;  // heap of the best `options_.parents`, worst on top
  uint64_t arrivals_ = 0;
  size_t seeded_or_proposed_ = 0;
};

}  // namespace tt
