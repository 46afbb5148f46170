// fma_peak: the FMA peak of one core, by register width, as the yardstick for a kernel's GFLOPS.
//
//   cc -O2 -mavx512f -mavx512vl -mfma bench/fma_peak.c -o fma_peak && taskset -c 1 ./fma_peak
//
// For zmm (16 floats), ymm (8), xmm (4) and scalar FMAs: 12 independent accumulators (more than
// latency x FMA pipes on current x86 cores, so the loop is throughput-bound), only register
// operands, repeated for about 0.5 s. Prints one line per width: GFLOPS (2 per float lane per FMA)
// and FMAs per nanosecond. No loads: a kernel that reaches this is FMA-bound.
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define CHAINS(T, FMA, SET1, SUM)                                                     \
  T acc[12];                                                                          \
  for (int i = 0; i < 12; ++i) acc[i] = SET1(1.0f + 1e-7f * i);                       \
  T a = SET1(0.999999f), b = SET1(1e-7f);                                             \
  for (long it = 0; it < iters; ++it) {                                               \
    _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) acc[i] = FMA(acc[i], a, b); \
    __asm__ volatile("" : "+v"(a));                                                   \
  }                                                                                   \
  float s = 0;                                                                        \
  for (int i = 0; i < 12; ++i) s += SUM(acc[i]);                                      \
  return s;

static float run_zmm(long iters) { CHAINS(__m512, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_reduce_add_ps) }
static float first_lane256(__m256 v) { return _mm256_cvtss_f32(v); }
static float run_ymm(long iters) { CHAINS(__m256, _mm256_fmadd_ps, _mm256_set1_ps, first_lane256) }
static float run_xmm(long iters) { CHAINS(__m128, _mm_fmadd_ps, _mm_set1_ps, _mm_cvtss_f32) }
static __m128 fma_ss(__m128 x, __m128 y, __m128 z) { return _mm_fmadd_ss(x, y, z); }
static float run_scalar(long iters) { CHAINS(__m128, fma_ss, _mm_set1_ps, _mm_cvtss_f32) }

int main(void) {
  struct {
    const char* name;
    float (*run)(long);
    int lanes;
  } widths[] = {{"zmm", run_zmm, 16}, {"ymm", run_ymm, 8}, {"xmm", run_xmm, 4}, {"scalar", run_scalar, 1}};
  for (int w = 0; w < 4; ++w) {
    long iters = 1 << 16;
    double t = 0;
    float sink = 0;
    for (;;) {  // grow until one timed run takes 0.5 s
      double t0 = now();
      sink += widths[w].run(iters);
      t = now() - t0;
      if (t > 0.5) break;
      iters *= 2;
    }
    double fmas = 12.0 * iters;
    printf("%-6s %7.1f GFLOPS  %5.2f FMAs/ns  (sink %g)\n", widths[w].name, 2.0 * widths[w].lanes * fmas / t / 1e9,
           fmas / t / 1e9, sink);
  }
  return 0;
}
