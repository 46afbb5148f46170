// C[M][N] = A[M][K] * B[K][N], all row-major float.
//
// Knobs (from the host, see src/ops/gemm_template.cpp), following AutoTVM's dense template:
//   tile_x = TX0 x TX1 x TX2 x TX3 splits M: work-groups, strided tiles per work-item,
//            work-items, contiguous rows per work-item.
//   tile_y = TY0 x TY1 x TY2 x TY3 splits N the same way.
//   tile_k = TK0 x TK1 x TK2 splits K: steps staged through local memory, middle (unrolled
//            when UNROLL_K) and inner (always unrolled) steps.
//   VEC: float vector width along N; LOCAL_A / LOCAL_B: stage A / B tiles in local memory.
// The splits are exact factorizations, so no bounds checks are needed.

#if VEC == 1
typedef float floatv;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#else
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
typedef CAT(float, VEC) floatv;
#define VLOAD(p) CAT(vload, VEC)(0, p)
#define VSTORE(v, p) CAT(vstore, VEC)(v, 0, p)
#endif

#define TM (TX1 * TX2 * TX3)  // rows of C per work-group
#define TN (TY1 * TY2 * TY3)  // columns of C per work-group
#define TK (TK1 * TK2)        // K step staged per barrier
#define NV (TY3 / VEC)        // vectors per contiguous column tile
#define WG (TX2 * TY2)        // work-items per group

#define PRAGMA_(x) _Pragma(#x)
#if UNROLL_K
#define UNROLL_MIDDLE PRAGMA_(unroll)
#else
#define UNROLL_MIDDLE PRAGMA_(unroll 1)
#endif

__kernel __attribute__((reqd_work_group_size(TY2, TX2, 1)))
void gemm(__global const float* restrict A, __global const float* restrict B,
          __global float* restrict C) {
  const int ln = get_local_id(0);  // along N: neighbours read neighbouring columns
  const int lm = get_local_id(1);
  const int n0 = get_group_id(0) * TN;
  const int m0 = get_group_id(1) * TM;

  floatv acc[TX1 * TX3][TY1 * NV];
#pragma unroll
  for (int i = 0; i < TX1 * TX3; ++i)
#pragma unroll
    for (int j = 0; j < TY1 * NV; ++j) acc[i][j] = (floatv)(0.0f);

#if LOCAL_A
  __local float As[TK * TM];  // transposed: As[k * TM + row]
#endif
#if LOCAL_B
  __local float Bs[TK * TN];  // Bs[k * TN + col]
#endif
#if LOCAL_A || LOCAL_B
  const int lid = lm * TY2 + ln;
#endif

  for (int k0 = 0; k0 < K; k0 += TK) {
#if LOCAL_A
    for (int t = lid; t < TM * TK; t += WG) {
      const int r = t / TK, c = t % TK;
      As[c * TM + r] = A[(m0 + r) * K + k0 + c];
    }
#endif
#if LOCAL_B
    for (int t = lid; t < TK * TN; t += WG) {
      const int r = t / TN, c = t % TN;
      Bs[r * TN + c] = B[(k0 + r) * N + n0 + c];
    }
#endif
#if LOCAL_A || LOCAL_B
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    UNROLL_MIDDLE
    for (int k1 = 0; k1 < TK1; ++k1) {
#pragma unroll
      for (int k2 = 0; k2 < TK2; ++k2) {
        const int kk = k1 * TK2 + k2;
        floatv b[TY1 * NV];
#pragma unroll
        for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
          for (int v = 0; v < NV; ++v) {
            const int c = j1 * TY2 * TY3 + ln * TY3 + v * VEC;
#if LOCAL_B
            b[j1 * NV + v] = VLOAD(&Bs[kk * TN + c]);
#else
            b[j1 * NV + v] = VLOAD(&B[(k0 + kk) * N + n0 + c]);
#endif
          }
#pragma unroll
        for (int i1 = 0; i1 < TX1; ++i1)
#pragma unroll
          for (int i3 = 0; i3 < TX3; ++i3) {
            const int r = i1 * TX2 * TX3 + lm * TX3 + i3;
#if LOCAL_A
            const floatv a = (floatv)(As[kk * TM + r]);
#else
            const floatv a = (floatv)(A[(m0 + r) * K + k0 + kk]);
#endif
#pragma unroll
            for (int j = 0; j < TY1 * NV; ++j) acc[i1 * TX3 + i3][j] = mad(a, b[j], acc[i1 * TX3 + i3][j]);
          }
      }
    }
#if LOCAL_A || LOCAL_B
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

#pragma unroll
  for (int i1 = 0; i1 < TX1; ++i1)
#pragma unroll
    for (int i3 = 0; i3 < TX3; ++i3) {
      const int r = m0 + i1 * TX2 * TX3 + lm * TX3 + i3;
#pragma unroll
      for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
        for (int v = 0; v < NV; ++v) {
          const int c = n0 + j1 * TY2 * TY3 + ln * TY3 + v * VEC;
          VSTORE(acc[i1 * TX3 + i3][j1 * NV + v], &C[r * N + c]);
        }
    }
}
