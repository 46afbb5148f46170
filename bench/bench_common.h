#pragma once
// Argument parsing and inputs shared by the baseline programs in bench/.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

// `text` as an integer >= minimum, or a message naming `what` and exit code 2.
inline long ParseCount(const char* program, const char* text, const char* what, long minimum) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < minimum) {
    std::fprintf(stderr, "%s: %s must be an integer >= %ld, got '%s'\n", program, what, minimum, text);
    std::exit(2);
  }
  return value;
}

// Small integers in [-2, 2], like tensortune's inputs: any summation order gives the exact
// result, so outputs can be checked for equality.
inline std::vector<float> SmallIntegers(size_t elements, uint64_t seed) {
  std::vector<float> data(elements);
  uint64_t state = seed;
  for (float& x : data) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // LCG, top bits used
    x = static_cast<float>(static_cast<int>((state >> 33) % 5) - 2);
  }
  return data;
}

inline double Median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  const size_t r = times.size();
  return r % 2 ? times[r / 2] : 0.5 * (times[r / 2 - 1] + times[r / 2]);
}

}  // namespace bench
