#include "space/knob.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace tt {
namespace {

std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 2; p * p <= n; ++p) {
    if (n % p) continue;
    primes.push_back(p);
    while (n % p == 0) n /= p;
  }
  if (n > 1) primes.push_back(n);
  return primes;
}

// All ordered factorizations of n into `parts` factors, in lexicographic order.
void Factorize(int64_t n, int parts, KnobValue& prefix, std::vector<KnobValue>& out) {
  if (parts == 1) {
    prefix.push_back(n);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d) continue;
    prefix.push_back(d);
    Factorize(n / d, parts - 1, prefix, out);
    prefix.pop_back();
  }
}

bool DifferByOneTransposition(const KnobValue& a, const KnobValue& b) {
  int differences = 0;
  for (size_t i = 0; i < a.size(); ++i) differences += a[i] != b[i];
  return differences == 2;
}

bool AlwaysAdjacent(const KnobValue&, const KnobValue&) { return true; }

}  // namespace

const char* ToString(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "split";
    case KnobKind::kPermutation:
      return "permutation";
    case KnobKind::kDiscrete:
      return "discrete";
    case KnobKind::kCategorical:
      return "categorical";
  }
  return "unknown";
}

Knob::Knob(std::string name, KnobKind kind, std::vector<KnobValue> values)
    : name_(std::move(name)), kind_(kind), values_(std::move(values)), neighbours_(values_.size()) {
  if (values_.empty()) throw std::invalid_argument("knob '" + name_ + "' has no values");
  for (uint32_t i = 0; i < values_.size(); ++i)
    if (!index_.emplace(values_[i], i).second) throw std::invalid_argument("knob '" + name_ + "' has a repeated value");
}

std::optional<uint32_t> Knob::Find(const KnobValue& value) const {
  const auto it = index_.find(value);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

Knob Knob::Pinned(const KnobValue& value) const {
  if (!Find(value)) throw std::invalid_argument("knob '" + name_ + "' has no such value");
  return Knob(name_, kind_, {value});
}

Knob Knob::Split(std::string name, int64_t extent, int parts) {
  return SplitWithTail(std::move(name), extent, parts, {});
}

Knob Knob::SplitWithTail(std::string name, int64_t extent, int parts, const std::vector<int64_t>& rounded) {
  if (extent < 1 || parts < 1) throw std::invalid_argument("split '" + name + "' needs extent, parts >= 1");
  if (parts < 2 && !rounded.empty()) throw std::invalid_argument("split '" + name + "' needs parts >= 2 for tails");
  std::vector<KnobValue> values;
  KnobValue prefix;
  Factorize(extent, parts, prefix, values);
  for (const int64_t r : rounded) {
    if (r <= extent) throw std::invalid_argument("split '" + name + "' rounds up to no more than its extent");
    std::vector<KnobValue> padded;
    Factorize(r, parts, prefix, padded);
    for (KnobValue& v : padded)
      if (r - extent < r / v[0]) values.push_back(std::move(v));
  }
  if (!rounded.empty()) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
  }
  Knob knob(std::move(name), KnobKind::kSplit, std::move(values));
  knob.LinkSplitNeighbours();
  return knob;
}

void Knob::LinkSplitNeighbours() {
  // Move one prime z from position n to position m: u_n / z, u_m * z. Built directly rather
  // than by comparing all pairs, since a split can have thousands of values.
  for (uint32_t i = 0; i < values_.size(); ++i) {
    const KnobValue& u = values_[i];
    for (size_t n = 0; n < u.size(); ++n) {
      for (int64_t z : PrimeFactors(u[n])) {
        for (size_t m = 0; m < u.size(); ++m) {
          if (m == n) continue;
          KnobValue v = u;
          v[n] /= z;
          v[m] *= z;
          // A split with tails lacks the values whose tile the move shrinks below the rounding.
          if (const auto j = Find(v)) neighbours_[i].push_back(*j);
        }
      }
    }
    std::sort(neighbours_[i].begin(), neighbours_[i].end());
  }
}

void Knob::LinkByPredicate(bool (*adjacent)(const KnobValue&, const KnobValue&)) {
  for (uint32_t i = 0; i < values_.size(); ++i)
    for (uint32_t j = 0; j < values_.size(); ++j)
      if (i != j && adjacent(values_[i], values_[j])) neighbours_[i].push_back(j);
}

Knob Knob::Permutation(std::string name, int n) {
  if (n < 1 || n > 8) throw std::invalid_argument("permutation '" + name + "' needs 1..8 items");
  KnobValue order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<KnobValue> values;
  do values.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  Knob knob(std::move(name), KnobKind::kPermutation, std::move(values));
  knob.LinkByPredicate(DifferByOneTransposition);
  return knob;
}

Knob Knob::Discrete(std::string name, std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  std::vector<KnobValue> wrapped;
  for (int64_t v : values) wrapped.push_back({v});
  Knob knob(std::move(name), KnobKind::kDiscrete, std::move(wrapped));
  for (uint32_t i = 0; i < knob.size(); ++i) {
    if (i > 0) knob.neighbours_[i].push_back(i - 1);
    if (i + 1 < knob.size()) knob.neighbours_[i].push_back(i + 1);
  }
  return knob;
}

Knob Knob::Categorical(std::string name, std::vector<int64_t> values) {
  std::vector<KnobValue> wrapped;
  for (int64_t v : values) wrapped.push_back({v});
  Knob knob(std::move(name), KnobKind::kCategorical, std::move(wrapped));
  knob.LinkByPredicate(AlwaysAdjacent);
  return knob;
}

}  // namespace tt
