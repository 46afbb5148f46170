#include "space/q_random_walk.h"

namespace tt {

uint32_t QRandomWalk(const Knob& knob, uint32_t start, double q, Rng& rng) {
  uint32_t at = start;
  while (rng.Chance(q)) {
    const auto& next = knob.neighbours(at);
    if (next.empty()) break;
    at = next[rng.Below(next.size())];
  }
  return at;
}

}  // namespace tt
