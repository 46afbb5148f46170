#pragma once
// Deterministic across platforms and standard libraries (unlike std::uniform_*_distribution),
// so that "same seed, same sequence" holds everywhere.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tt {

class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();             // xoshiro256**
  uint64_t Below(uint64_t n);  // uniform in [0, n), n > 0
  double Uniform();            // uniform in [0, 1)
  bool Chance(double p) { return Uniform() < p; }
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[Below(i)]);
  }

 private:
  uint64_t s_[4];
};

}  // namespace tt
