#pragma once
// Fitness of measured configs and fitness-proportional choice, shared by the evolutionary tuners.
#include <cstddef>
#include <deque>
#include <vector>

#include "core/rng.h"
#include "tuners/tuner.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct ScoredConfig {
  Config config;
  double fitness = 0;
};

// GFLOPS when the config ran correctly; 0 for every failure, so failures are never inherited.
double Fitness(const Observation& observation);

// An index drawn with probability weights[i] / sum (OpEvo eq. 2). Uniform when every weight is
// 0: eq. 2 is undefined then, and a uniform choice keeps the search going. weights nonempty.
size_t PickByFitness(const std::vector<double>& weights, Rng& rng);

std::vector<double> Fitnesses(const std::vector<ScoredConfig>& scored);

// Drops from a bred, not yet proposed generation the configs that `history` seeded since.
void DropSeeded(std::deque<Config>& generation, const std::vector<Observation>& history);

// A genetic tuner's Update: each measured config of `space` is marked seen and scored into
// `observed` (the pool of the next breeding); configs of another space are passed over.
void ScoreMeasured(const ConfigSpace& space, const std::vector<Observation>& measured, UnseenConfigs& unseen,
                   std::vector<ScoredConfig>& observed);

// A genetic tuner's NextBatch: up to `max_size` configs from the front of a bred generation.
std::vector<Config> TakeBatch(std::deque<Config>& generation, size_t max_size);

}  // namespace tt
