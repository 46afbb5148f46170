// blas_sgemm M N K [threads=2]
//
// Times OpenBLAS cblas_sgemm on C[M][N] = A[M][K] * B[K][N], row-major float32, with inputs
// like tensortune's (small integers in [-2, 2]). One untimed warm-up call, then timed calls
// until they add up to at least one second; prints one JSON object with the median and minimum
// call time, GFLOPS from the median, and the number of timed repeats.

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// Declared by OpenBLAS's cblas.h; repeated for headers that lack it (same signature).
extern "C" void openblas_set_num_threads(int num_threads);

namespace {

long ParsePositive(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0) {
    std::fprintf(stderr, "blas_sgemm: %s must be a positive integer, got '%s'\n", what, text);
    std::exit(2);
  }
  return value;
}

std::vector<float> SmallIntegers(size_t elements, uint64_t seed) {
  std::vector<float> data(elements);
  uint64_t state = seed;
  for (float& x : data) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // LCG, top bits used
    x = static_cast<float>(static_cast<int>((state >> 33) % 5) - 2);
  }
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: blas_sgemm M N K [threads=2]\n");
    return 2;
  }
  const long m = ParsePositive(argv[1], "M"), n = ParsePositive(argv[2], "N"), k = ParsePositive(argv[3], "K");
  const int threads = argc == 5 ? static_cast<int>(ParsePositive(argv[4], "threads")) : 2;

  // Both: the variable for any pool created lazily, the call for the one already started.
  setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
  openblas_set_num_threads(threads);

  const std::vector<float> a = SmallIntegers(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = SmallIntegers(static_cast<size_t>(k * n), 2);
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);

  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(n), 0.0f,
                c.data(), static_cast<int>(n));
  };

  sgemm();  // warm-up: thread pool, page faults, caches

  // Spot check: with small integer inputs every sum is exact, so entries must match exactly.
  for (long i : {0L, m / 2, m - 1})
    for (long j : {0L, n / 2, n - 1}) {
      double want = 0;
      for (long p = 0; p < k; ++p) want += static_cast<double>(a[i * k + p]) * b[p * n + j];
      if (static_cast<double>(c[i * n + j]) != want) {
        std::fprintf(stderr, "blas_sgemm: C[%ld][%ld] = %g, expected %g\n", i, j, c[i * n + j], want);
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

  std::sort(times.begin(), times.end());
  const size_t r = times.size();
  const double median = r % 2 ? times[r / 2] : 0.5 * (times[r / 2 - 1] + times[r / 2]);
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  std::printf(
      "{\"m\": %ld, \"n\": %ld, \"k\": %ld, \"threads\": %d, \"median_s\": %.9g, \"min_s\": %.9g, "
      "\"gflops\": %.6g, \"repeats\": %zu}\n",
      m, n, k, threads, median, times.front(), flops / median * 1e-9, r);
  return 0;
}
