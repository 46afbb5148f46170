#pragma once
// OpEvo's mutation (section 4.3): from the current value, step to a uniformly chosen
// neighbour with probability q, else stop. q near 1 explores; q near 0 keeps the value.
#include <cstdint>

#include "core/rng.h"
#include "space/knob.h"

namespace tt {

uint32_t QRandomWalk(const Knob& knob, uint32_t start, double q, Rng& rng);

}  // namespace tt
