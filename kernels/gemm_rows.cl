// C[M,N] = A[M,K] x B[K,N], row-major float, for a few rows M (a dense layer at batch 1 to 8):
// a matrix-vector product in all but name. Its cost is reading B once, so the kernel streams B
// along K: each work-item owns NV vectors of VEC adjacent columns for every row of C, and for
// each k reads those VEC * NV floats of row k of B and broadcasts A[m][k] against them. No local
// memory: it would copy B, which is all there is to read.
//
// B arrives row-major (gemm_rows) or, with PANELS, packed once as [ceil(N/16)][K][16] (the
// KN16n layout of gemm_rows_panels, the lanes past N zero): a work-item then reads each of its
// panels as one contiguous stream, where row-major B gives it a short run per row, 4N bytes
// apart, which a CPU's prefetcher follows poorly (notebook, 2026-11-29).
//
// Knobs (src/ops/matmul_templates.cpp): VEC, NV, UNROLL (steps of K unrolled; it divides K)
// and the work-group size (host side only). A work-item whose columns run past N loads the
// vector that N cuts lane by lane, clamped into the row (with PANELS, whole vectors from the
// zero lanes), and stores only the columns inside; work-items wholly past N return at once.

#define COLS (VEC * NV)  // columns per work-item

// VEC floats of row `k` from column n on, each clamped to the last column.
floatv load_lanes(__global const float* restrict B, int k, int n) {
  float lanes[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) lanes[l] = B[k * N + min(n + l, N - 1)];
  return VLOAD(lanes);
}

#define ROWS_STEP(LOAD)                                                              \
  for (int k0 = 0; k0 < K; k0 += UNROLL) {                                           \
    _Pragma("unroll") for (int u = 0; u < UNROLL; ++u) {                             \
      const int k = k0 + u;                                                          \
      floatv b[NV];                                                                  \
      _Pragma("unroll") for (int v = 0; v < NV; ++v) b[v] = LOAD(k, n0 + v * VEC);   \
      _Pragma("unroll") for (int m = 0; m < M; ++m) {                                \
        const floatv a = (floatv)(A[m * K + k]);                                     \
        _Pragma("unroll") for (int v = 0; v < NV; ++v) acc[m][v] = fma(a, b[v], acc[m][v]); \
      }                                                                              \
    }                                                                                \
  }
#ifdef PANELS
#define PANEL 16
#define PADDED_N ((N + PANEL - 1) / PANEL * PANEL)
// VEC divides PANEL, so a vector of columns lies within one panel.
#define LOAD_INSIDE(k, n) VLOAD(&B[((size_t)((n) / PANEL) * K + (k)) * PANEL + (n) % PANEL])
#define LOAD_EDGE(k, n) ((n) < PADDED_N ? LOAD_INSIDE(k, n) : (floatv)(0.0f))
#else
#define LOAD_INSIDE(k, n) VLOAD(&B[(k) * N + (n)])
// In the work-item past N, whole vectors inside N still load as vectors: only the last one,
// which N cuts, loads lane by lane.
#define LOAD_EDGE(k, n) ((n) + VEC <= N ? VLOAD(&B[(k) * N + (n)]) : load_lanes(B, k, n))
#endif

__kernel void gemm_rows(__global const float* restrict A, __global const float* restrict B,
                        __global float* restrict C) {
  const int n0 = get_global_id(0) * COLS;
  if (n0 >= N) return;  // work-items that only round the NDRange up to the work-group size
  floatv acc[M][NV];
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[m][v] = (floatv)(0.0f);

  if (n0 + COLS <= N) {
    ROWS_STEP(LOAD_INSIDE)
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int v = 0; v < NV; ++v) VSTORE(acc[m][v], &C[m * N + n0 + v * VEC]);
  } else {
    ROWS_STEP(LOAD_EDGE)
    for (int m = 0; m < M; ++m)
      for (int v = 0; v < NV; ++v) {
        float lanes[VEC];
        VSTORE(acc[m][v], lanes);
        for (int l = 0; l < VEC; ++l)
          if (n0 + v * VEC + l < N) C[m * N + n0 + v * VEC + l] = lanes[l];
      }
  }
}
