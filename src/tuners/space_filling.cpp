#include "tuners/space_filling.h"

#include <algorithm>
#include <limits>

namespace tt {

double ScaledDistance(const ConfigSpace& space, const Config& a, const Config& b) {
  double sum = 0;
  for (size_t k = 0; k < space.num_knobs(); ++k) {
    const size_t size = space.knob(k).size();
    if (size < 2) continue;
    const double d = (static_cast<double>(a[k]) - static_cast<double>(b[k])) / static_cast<double>(size - 1);
    sum += d * d;
  }
  return sum;
}

size_t FarthestCandidate(const ConfigSpace& space, const std::vector<Config>& candidates,
                         const std::vector<const Config*>& chosen) {
  size_t best = 0;
  double best_distance = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (const Config* c : chosen) nearest = std::min(nearest, ScaledDistance(space, candidates[i], *c));
    if (nearest > best_distance) {
      best_distance = nearest;
      best = i;
    }
  }
  return best;
}

}  // namespace tt
