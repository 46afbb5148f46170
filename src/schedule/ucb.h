#pragma once
// The upper confidence bound shared by task and sketch selection (Bansor eq. 3 and 5).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/rng.h"

namespace tt {

// reward + c * sqrt(2 ln N / n): N rounds in all, n of them given to this arm (n >= 1).
inline double UcbBound(double reward, int64_t total_rounds, int64_t rounds, double c) {
  return reward + c * std::sqrt(2 * std::log(static_cast<double>(total_rounds)) / static_cast<double>(rounds));
}

// Among `candidates`, the index whose score is highest, ties broken at random.
template <typename Score>
size_t ArgmaxRandomTie(const std::vector<size_t>& candidates, Score score, Rng& rng) {
  double top = -std::numeric_limits<double>::infinity();
  std::vector<size_t> best;
  for (size_t i : candidates) {
    const double s = score(i);
    if (s > top) top = s, best.clear();
    if (s == top) best.push_back(i);
  }
  return best[rng.Below(best.size())];
}

}  // namespace tt
