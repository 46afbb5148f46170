// Z[b] = op(X[b]) x op(Y[b]) for b < B, all row-major float; Z[b] is M x N. GEMM is the case
// B = 1 (TB0 = TB1 = 1) without transpositions.
// X[b] is M x K, or K x M when TRANS_A (op transposes it back); Y[b] is K x N, or N x K
// when TRANS_B.
//
// Knobs (from the host, see src/ops/matmul_templates.cpp), following AutoTVM's
// dense and batch_matmul templates:
//   tile_b = TB0 x TB1 splits B: work-groups and work-items along NDRange dimension 2; each
//            work-item computes one batch entry.
//   tile_x = TX0 x TX1 x TX2 x TX3 splits M: work-groups, strided tiles per work-item,
//            work-items, contiguous rows per work-item.
//   tile_y = TY0 x TY1 x TY2 x TY3 splits N the same way.
//   tile_k = TK0 x TK1 x TK2 splits K: steps staged through local memory, middle (unrolled
//            when UNROLL_K) and inner (always unrolled) steps.
//   VEC: float vector width along N; LOCAL_A / LOCAL_B: stage A / B tiles in local memory,
//        one tile per batch entry of the work-group.
// The splits are exact factorizations, so no bounds checks are needed.

// floatv, VLOAD and VSTORE come from vector_types.cl.
#if VEC == 1
#define GATHER(p, s) (*(p))
#endif

// VEC floats `s` apart, for a transposed B read along N straight from global memory.
#if VEC == 2
#define GATHER(p, s) ((floatv)((p)[0], (p)[s]))
#elif VEC == 4
#define GATHER(p, s) ((floatv)((p)[0], (p)[s], (p)[2 * (s)], (p)[3 * (s)]))
#elif VEC == 8
#define GATHER(p, s) \
  ((floatv)((p)[0], (p)[s], (p)[2 * (s)], (p)[3 * (s)], (p)[4 * (s)], (p)[5 * (s)], (p)[6 * (s)], (p)[7 * (s)]))
#elif VEC == 16
#define GATHER(p, s) ((floatv)(GATHER8_(p, s), GATHER8_((p) + 8 * (s), s)))
#define GATHER8_(p, s) \
  (float8)((p)[0], (p)[s], (p)[2 * (s)], (p)[3 * (s)], (p)[4 * (s)], (p)[5 * (s)], (p)[6 * (s)], (p)[7 * (s)])
#endif

#if TRANS_A
#define A_AT(m, k) A[(k) * M + (m)]
#else
#define A_AT(m, k) A[(m) * K + (k)]
#endif
#if TRANS_B
#define B_VEC_AT(k, n) GATHER(&B[(n) * K + (k)], K)
#else
#define B_VEC_AT(k, n) VLOAD(&B[(k) * N + (n)])
#endif

#define TM (TX1 * TX2 * TX3)  // rows of Z per work-group
#define TN (TY1 * TY2 * TY3)  // columns of Z per work-group
#define TK (TK1 * TK2)        // K step staged per barrier
#define NV (TY3 / VEC)        // vectors per contiguous column tile
#define WG (TX2 * TY2)        // work-items per batch entry of a group

#define PRAGMA_(x) _Pragma(#x)
#if UNROLL_K
#define UNROLL_MIDDLE PRAGMA_(unroll)
#else
#define UNROLL_MIDDLE PRAGMA_(unroll 1)
#endif

// Copies the A tile at (m0, k0) to As[k * TM + row]. Neighbouring work-items read
// neighbouring addresses: along K, or along M when A is stored transposed.
#if LOCAL_A
void stage_a(__global const float* restrict A, __local float* As, int m0, int k0, int lid) {
  for (int t = lid; t < TM * TK; t += WG) {
#if TRANS_A
    const int r = t % TM, c = t / TM;
#else
    const int r = t / TK, c = t % TK;
#endif
    As[c * TM + r] = A_AT(m0 + r, k0 + c);
  }
}
#endif

// Copies the B tile at (k0, n0) to Bs[k * TN + col], reading along N, or along K when B is
// stored transposed.
#if LOCAL_B
void stage_b(__global const float* restrict B, __local float* Bs, int k0, int n0, int lid) {
  for (int t = lid; t < TK * TN; t += WG) {
#if TRANS_B
    const int r = t % TK, c = t / TK;
    Bs[r * TN + c] = B[(n0 + c) * K + k0 + r];
#else
    const int r = t / TN, c = t % TN;
    Bs[r * TN + c] = B[(k0 + r) * N + n0 + c];
#endif
  }
}
#endif

__kernel __attribute__((reqd_work_group_size(TY2, TX2, TB1)))
void matmul(__global const float* restrict X, __global const float* restrict Y,
             __global float* restrict Z) {
  const int ln = get_local_id(0);  // along N: neighbours read neighbouring columns
  const int lm = get_local_id(1);
  const int lb = get_local_id(2);
  const int n0 = get_group_id(0) * TN;
  const int m0 = get_group_id(1) * TM;
  const int b = get_global_id(2);
  __global const float* restrict A = X + b * (M * K);
  __global const float* restrict B = Y + b * (K * N);
  __global float* restrict C = Z + b * (M * N);

  floatv acc[TX1 * TX3][TY1 * NV];
#pragma unroll
  for (int i = 0; i < TX1 * TX3; ++i)
#pragma unroll
    for (int j = 0; j < TY1 * NV; ++j) acc[i][j] = (floatv)(0.0f);

#if LOCAL_A
  __local float As_all[TB1 * TK * TM];
  __local float* As = As_all + lb * (TK * TM);
#endif
#if LOCAL_B
  __local float Bs_all[TB1 * TK * TN];
  __local float* Bs = Bs_all + lb * (TK * TN);
#endif
#if LOCAL_A || LOCAL_B
  const int lid = lm * TY2 + ln;
#endif

  for (int k0 = 0; k0 < K; k0 += TK) {
#if LOCAL_A
    stage_a(A, As, m0, k0, lid);
#endif
#if LOCAL_B
    stage_b(B, Bs, k0, n0, lid);
#endif
#if LOCAL_A || LOCAL_B
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    UNROLL_MIDDLE
    for (int k1 = 0; k1 < TK1; ++k1) {
#pragma unroll
      for (int k2 = 0; k2 < TK2; ++k2) {
        const int kk = k1 * TK2 + k2;
        floatv bv[TY1 * NV];
#pragma unroll
        for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
          for (int v = 0; v < NV; ++v) {
            const int c = j1 * TY2 * TY3 + ln * TY3 + v * VEC;
#if LOCAL_B
            bv[j1 * NV + v] = VLOAD(&Bs[kk * TN + c]);
#else
            bv[j1 * NV + v] = B_VEC_AT(k0 + kk, n0 + c);
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
            const floatv a = (floatv)(A_AT(m0 + r, k0 + kk));
#endif
#pragma unroll
            for (int j = 0; j < TY1 * NV; ++j) acc[i1 * TX3 + i3][j] = fma(a, bv[j], acc[i1 * TX3 + i3][j]);
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
