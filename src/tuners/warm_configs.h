#pragma once
// The configs of a warm start worth measuring first, for tuners that start from configs rather
// than from a model: the evolutionary tuners' first population, G-BFS's start, the annealing
// walkers of xgb.
#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include "space/config_space.h"
#include "tuners/unseen_configs.h"
#include "tuners/warm_start.h"

namespace tt {

// Best first, valid in `space`, distinct, at most `max`: the candidates (adapted and ranked by
// the warm start), then the transfer samples adapted to `space`, ranked by their throughput
// against the best of their source (its device) times the source's similarity. Failed
// samples are left out.
std::vector<Config> BestWarmConfigs(const ConfigSpace& space, const WarmStart& warm_start, size_t max);

// The front of `queue` that is still fresh, taken off it (stale ones before it dropped), or
// nullopt when none is left.
std::optional<Config> TakeFresh(std::deque<Config>& queue, const UnseenConfigs& unseen);

// Each transfer sample's throughput against the best of its source (in [0, 1]; 0 for a
// failure), in sample order: what samples of devices of other speeds share as a scale.
std::vector<double> RelativeToSourceBest(const WarmStart& warm_start);

}  // namespace tt
