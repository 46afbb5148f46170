#include "model/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tt {
namespace {

void CheckSizes(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("rank correlation of vectors of different sizes");
}

// Ranks from 1, ties at their average rank.
std::vector<double> Ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return values[i] < values[j]; });
  std::vector<double> ranks(values.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start;
    while (end + 1 < order.size() && values[order[end + 1]] == values[order[start]]) ++end;
    const double rank = (static_cast<double>(start + end) / 2) + 1;
    for (size_t k = start; k <= end; ++k) ranks[order[k]] = rank;
    start = end + 1;
  }
  return ranks;
}

int Sign(double x) { return (x > 0) - (x < 0); }

}  // namespace

double SpearmanRho(const std::vector<double>& a, const std::vector<double>& b) {
  CheckSizes(a, b);
  if (a.size() < 2) return 0;
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n + 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

double KendallTau(const std::vector<double>& a, const std::vector<double>& b) {
  CheckSizes(a, b);
  double concordant_minus_discordant = 0, pairs_a = 0, pairs_b = 0;  // pairs not tied in a, in b
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j) {
      const int sa = Sign(a[i] - a[j]), sb = Sign(b[i] - b[j]);
      concordant_minus_discordant += sa * sb;
      pairs_a += sa != 0;
      pairs_b += sb != 0;
    }
  return pairs_a > 0 && pairs_b > 0 ? concordant_minus_discordant / std::sqrt(pairs_a * pairs_b) : 0;
}

}  // namespace tt
