// dnnl_sgemm M N K [threads=2]
//
// Times oneDNN's dnnl_sgemm on C[M][N] = A[M][K] * B[K][N], row-major float32, with inputs like
// tensortune's; the same protocol and JSON as blas_sgemm (bench_common.h, TimeSgemm).

#include <omp.h>

#include <cstdio>
#include <vector>

#include "bench_common.h"
#include "oneapi/dnnl/dnnl.h"

int main(int argc, char** argv) {
  constexpr const char* kProgram = "dnnl_sgemm";
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: dnnl_sgemm M N K [threads=2]\n");
    return 2;
  }
  const long m = bench::ParseCount(kProgram, argv[1], "M", 1), n = bench::ParseCount(kProgram, argv[2], "N", 1),
             k = bench::ParseCount(kProgram, argv[3], "K", 1);
  const int threads = argc == 5 ? static_cast<int>(bench::ParseCount(kProgram, argv[4], "threads", 1)) : 2;
  omp_set_num_threads(threads);

  const std::vector<float> a = bench::SmallIntegers(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = bench::SmallIntegers(static_cast<size_t>(k * n), 2);
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);
  bool failed = false;
  auto sgemm = [&] {
    failed |= dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n) != dnnl_success;
  };
  const int code = bench::TimeSgemm(kProgram, m, n, k, threads, a, b, c, sgemm);
  if (failed) std::fprintf(stderr, "dnnl_sgemm: the call failed\n");
  return failed ? 1 : code;
}
