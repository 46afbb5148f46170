#include "core/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tt {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
  if (std::isinf(values[hi]) || lo == hi) return values[hi];
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

std::vector<double> LeastOverInterleavedRounds(size_t items, int rounds,
                                               const std::function<double(size_t)>& time_once) {
  std::vector<double> least(items, std::numeric_limits<double>::infinity());
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < items; ++i) least[i] = std::min(least[i], time_once(i));
  return least;
}

}  // namespace tt
