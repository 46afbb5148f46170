#pragma once
// Fitness of measured configs and fitness-proportional choice, shared by the evolutionary tuners.
#include <cstddef>
#include <deque>
#include <vector>

#include "core/rng.h"
#include "tuners/tuner.h"

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

}  // namespace tt
