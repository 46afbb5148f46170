#pragma once
// Argument parsing and inputs shared by the baseline programs in bench/.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

// Times sgemm() computing c[m][n] = a[m][k] * b[k][n] (row-major, inputs from SmallIntegers):
// one untimed warm-up call, a spot check of nine entries (exact with small integers), then
// timed calls until they add up to one second. Prints one JSON object; returns the exit code.
inline int TimeSgemm(const char* program, long m, long n, long k, int threads, const std::vector<float>& a,
                     const std::vector<float>& b, const std::vector<float>& c, const std::function<void()>& sgemm) {
  sgemm();  // warm-up: thread pool, page faults, caches
  for (long i : {0L, m / 2, m - 1})
    for (long j : {0L, n / 2, n - 1}) {
      double want = 0;
      for (long p = 0; p < k; ++p) want += static_cast<double>(a[i * k + p]) * b[p * n + j];
      if (static_cast<double>(c[i * n + j]) != want) {
        std::fprintf(stderr, "%s: C[%ld][%ld] = %g, expected %g\n", program, i, j, c[i * n + j], want);
        return 1;
      }
    }
  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  double total = 0;
  while (total < 1.0) {
    const auto start = Clock::now();
    sgemm();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    times.push_back(seconds);
    total += seconds;
  }
  const double median = Median(times);
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  std::printf(
      "{\"m\": %ld, \"n\": %ld, \"k\": %ld, \"threads\": %d, \"median_s\": %.9g, \"min_s\": %.9g, "
      "\"gflops\": %.6g, \"repeats\": %zu}\n",
      m, n, k, threads, median, *std::min_element(times.begin(), times.end()), flops / median * 1e-9, times.size());
  return 0;
}

}  // namespace bench
