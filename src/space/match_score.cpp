#include "space/match_score.h"

#include <algorithm>
#include <cmath>

namespace tt {
namespace {

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// Both sorted: the number of common values.
size_t CommonCount(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t common = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j])
      ++common, ++i, ++j;
    else if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return common;
}

int64_t ExtentOf(const SplitExtents& extents, const std::string& name) {
  for (const auto& [n, e] : extents)
    if (n == name) return e;
  return 0;
}

}  // namespace

SplitExtents SplitExtentsOf(const ConfigSpace& space) {
  SplitExtents extents;
  for (const Knob& knob : space.knobs()) {
    if (knob.kind() != KnobKind::kSplit) continue;
    int64_t extent = 1;
    for (const int64_t f : knob.value(0)) extent *= f;
    extents.emplace_back(knob.name(), extent);
  }
  return extents;
}

TargetExtents TargetExtentsOf(const ConfigSpace& space) {
  TargetExtents target{SplitExtentsOf(space), {}};
  for (const auto& [name, extent] : target.exact) {
    const Knob& knob = space.knob(space.KnobIndex(name));
    std::vector<int64_t> products;
    for (uint32_t i = 0; i < knob.size(); ++i) {
      int64_t product = 1;
      for (const int64_t f : knob.value(i)) product *= f;
      if (product != extent) products.push_back(product);
    }
    std::sort(products.begin(), products.end());
    products.erase(std::unique(products.begin(), products.end()), products.end());
    for (const int64_t p : products) target.tails.emplace_back(name, p);
  }
  return target;
}

SplitExtents SplitExtentsOf(const KnobValues& recorded) {
  SplitExtents extents;
  for (const auto& [name, value] : recorded) {
    if (value.size() < 2) continue;  // discrete and categorical knobs hold one number
    int64_t extent = 1;
    for (const int64_t f : value) extent *= f;
    extents.emplace_back(name, extent);
  }
  return extents;
}

SplitExtents WorkloadExtents(const Workload& workload) {
  SplitExtents extents;
  for (const auto& [name, value] : workload.dims)
    if (value > 0) extents.emplace_back(name, value);
  return extents;
}

double MatchScore(const SplitExtents& recorded, const SplitExtents& wanted, const SplitExtents& tails) {
  if (wanted.empty()) return 0;
  double score = 0;
  for (const auto& [name, extent] : wanted) {
    const int64_t h = ExtentOf(recorded, name);
    if (h <= 0 || extent <= 0) continue;
    if (std::find(tails.begin(), tails.end(), std::pair{name, h}) != tails.end()) {
      score += 1;
      continue;
    }
    const auto factors_h = Divisors(h);
    score += static_cast<double>(CommonCount(factors_h, Divisors(extent))) / static_cast<double>(factors_h.size());
  }
  return score / static_cast<double>(wanted.size());
}

double RecordMatchScore(const Workload& recorded, const KnobValues& values, const Workload& wanted,
                        const TargetExtents& target) {
  constexpr double kOtherWindow = 0.5;
  const double score = target.exact.empty() ? MatchScore(WorkloadExtents(recorded), WorkloadExtents(wanted))
                                            : MatchScore(SplitExtentsOf(values), target);
  return SameWindow(recorded, wanted) ? score : kOtherWindow * score;
}

double Utilisation(const KnobValues& recorded, const SplitExtents& wanted) {
  double gamma = 1;
  for (const auto& [name, n] : wanted) {
    const KnobValue* value = FindKnobValue(recorded, name);
    if (!value || value->empty() || n <= 0) continue;
    int64_t tile = 1;
    for (size_t i = 1; i < value->size(); ++i) tile *= (*value)[i];
    if (tile <= 0) continue;
    const double p = static_cast<double>(tile);
    gamma *=
        n > tile ? static_cast<double>(n) / (std::ceil(static_cast<double>(n) / p) * p) : static_cast<double>(n) / p;
  }
  return gamma;
}

double FilterMetric(double recorded_gflops, double utilisation, double match_score, double omega) {
  return recorded_gflops * utilisation * std::pow(match_score, omega);
}

}  // namespace tt
