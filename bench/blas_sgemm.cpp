// blas_sgemm M N K [threads=2]
//
// Times OpenBLAS cblas_sgemm on C[M][N] = A[M][K] * B[K][N], row-major float32, with inputs
// like tensortune's (small integers in [-2, 2]). One untimed warm-up call, then timed calls
// until they add up to at least one second; prints one JSON object with the median and minimum
// call time, GFLOPS from the median, and the number of timed repeats.

#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {
constexpr const char* kProgram = "blas_sgemm";
}  // namespace

// Declared by OpenBLAS's cblas.h; repeated for headers that lack it (same signature).
extern "C" void openblas_set_num_threads(int num_threads);

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: blas_sgemm M N K [threads=2]\n");
    return 2;
  }
  const long m = bench::ParseCount(kProgram, argv[1], "M", 1), n = bench::ParseCount(kProgram, argv[2], "N", 1),
             k = bench::ParseCount(kProgram, argv[3], "K", 1);
  const int threads = argc == 5 ? static_cast<int>(bench::ParseCount(kProgram, argv[4], "threads", 1)) : 2;

  // Both: the variable for any pool created lazily, the call for the one already started.
  setenv("OPENBLAS_NUM_THREADS", std::to_string(threads).c_str(), 1);
  openblas_set_num_threads(threads);

  const std::vector<float> a = bench::SmallIntegers(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = bench::SmallIntegers(static_cast<size_t>(k * n), 2);
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);

  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(n), 0.0f, c.data(),
                static_cast<int>(n));
  };

  return bench::TimeSgemm(kProgram, m, n, k, threads, a, b, c, sgemm);
}
