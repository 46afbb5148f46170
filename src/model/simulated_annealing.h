#pragma once
// AutoTVM's SimulatedAnnealingOptimizer: parallel walkers move over the space by random
// single-knob changes, accepted by a temperature that cools from 1 to 0, while the best-scored
// admissible configs met on the way are kept as the plan. Stops early once the plan has not
// changed for `early_stop` steps.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/rng.h"
#include "space/config_space.h"

namespace tt {

struct AnnealingParams {
  size_t plan_size = 64;
  size_t max_steps = 200;
  size_t early_stop = 50;
};

// Scores a batch of configs, higher better: one call per step for all walkers.
using BatchScorer = std::function<std::vector<float>(const std::vector<Config>&)>;
using ConfigFilter = std::function<bool(const Config&)>;

struct AnnealingResult {
  std::vector<Config> plan;     // admissible configs, best predicted first, at most plan_size
  std::vector<Config> walkers;  // where the walkers ended, to start the next anneal from
};

// `walkers` are valid configs of `space` (one per parallel walker); they never step onto an
// invalid config. Only configs that `admit` accepts enter the plan. `space` must be indexable.
AnnealingResult Anneal(const ConfigSpace& space, std::vector<Config> walkers, const BatchScorer& score,
                       const ConfigFilter& admit, const AnnealingParams& params, Rng& rng);

}  // namespace tt
