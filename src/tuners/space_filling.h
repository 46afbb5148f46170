#pragma once
// Initial designs that spread over a space: of a few random candidates, the one farthest from
// the configs chosen so far (maximin), so that a handful of random looks do not cluster.
#include <cstddef>
#include <vector>

#include "space/config_space.h"

namespace tt {

// Squared distance of two configs with every knob's value index scaled to [0, 1].
double ScaledDistance(const ConfigSpace& space, const Config& a, const Config& b);

// The index of the candidate whose nearest chosen config is farthest (the first on a tie; 0
// when nothing is chosen). `candidates` must not be empty.
size_t FarthestCandidate(const ConfigSpace& space, const std::vector<Config>& candidates,
                         const std::vector<const Config*>& chosen);

}  // namespace tt
