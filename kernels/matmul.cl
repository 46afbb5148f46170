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
//   PACK_B: B is first copied by pack_b, a pre-pass the host times with the kernel, into one
//        panel per column of work-groups: its TN columns for each k, contiguous. The K loop
//        then reads B as one stream instead of TK rows N floats apart, which at power-of-two N
//        all fall into the same cache sets; a transposed B is read along N like any other.
//        Columns past N (of the edge panel, or of whole panels past N where tile_y factors N
//        rounded up) repeat the last one, so edge groups read panels unguarded.
// A split may also factor its extent rounded up (src/ops/matmul_templates.cpp): the host then
// sets TAIL_M, TAIL_N or TAIL_K and the last tile along that extent is partial. Work-groups
// whose tile lies inside M x N run the unguarded code; the edge groups clamp the rows and
// columns they load into the matrices (the values past M or N are computed, never stored) and
// store only what lies inside. K's partial step runs as a remainder step of K % TK. Without
// TAIL_* flags the code is that of exact splits, with no bounds checks.
#ifndef TAIL_M
#define TAIL_M 0
#endif
#ifndef TAIL_N
#define TAIL_N 0
#endif
#ifndef TAIL_K
#define TAIL_K 0
#endif
#ifndef PACK_B
#define PACK_B 0
#endif
#if PACK_B && LOCAL_B
#error "PACK_B and LOCAL_B both stage B"
#endif

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
#define B_AT(k, n) B[(n) * K + (k)]
#define B_VEC_AT(k, n) GATHER(&B[(n) * K + (k)], K)
#else
#define B_AT(k, n) B[(k) * N + (n)]
#define B_VEC_AT(k, n) VLOAD(&B[(k) * N + (n)])
#endif

#define TM (TX1 * TX2 * TX3)  // rows of Z per work-group
#define TN (TY1 * TY2 * TY3)  // columns of Z per work-group
#define TK (TK1 * TK2)        // K step staged per barrier
#define NV (TY3 / VEC)        // vectors per contiguous column tile
#define WG (TX2 * TY2)        // work-items per batch entry of a group
#define KR (K % TK)           // K of the remainder step (0 without TAIL_K)
#define NP TY0                 // panels of a packed B, one per column of work-groups

// Row m of A and column n of B as an edge group (G = 1) loads them: clamped into the matrix.
#define ROW(G, m) ((G) && TAIL_M ? min((m), M - 1) : (m))
#define COL(G, n) ((G) && TAIL_N ? min((n), N - 1) : (n))

#define PRAGMA_(x) _Pragma(#x)
#if UNROLL_K
#define UNROLL_MIDDLE PRAGMA_(unroll)
#else
#define UNROLL_MIDDLE PRAGMA_(unroll 1)
#endif

// Copies the A tile at (m0, k0), kn steps of K, to As[k * TM + row]. Neighbouring
// work-items read neighbouring addresses: along K, or along M when A is stored transposed.
#if LOCAL_A
void stage_a(__global const float* restrict A, __local float* As, int m0, int k0, int lid, const int kn,
             const bool edge) {
  for (int t = lid; t < TM * kn; t += WG) {
#if TRANS_A
    const int r = t % TM, c = t / TM;
#else
    const int r = t / kn, c = t % kn;
#endif
    As[c * TM + r] = A_AT(ROW(edge, m0 + r), k0 + c);
  }
}
#define STAGE_A(G, kn) stage_a(A, As, m0, k0, lid, kn, G);
#else
#define STAGE_A(G, kn)
#endif

// Copies the B tile at (k0, n0), kn steps of K, to Bs[k * TN + col], reading along N, or
// along K when B is stored transposed.
#if LOCAL_B
void stage_b(__global const float* restrict B, __local float* Bs, int k0, int n0, int lid, const int kn,
             const bool edge) {
  for (int t = lid; t < kn * TN; t += WG) {
#if TRANS_B
    const int r = t % kn, c = t / kn;
#else
    const int r = t / TN, c = t % TN;
#endif
    Bs[r * TN + c] = B_AT(k0 + r, COL(edge, n0 + c));
  }
}
#define STAGE_B(G, kn) stage_b(B, Bs, k0, n0, lid, kn, G);
#else
#define STAGE_B(G, kn)
#endif

#if LOCAL_A || LOCAL_B
#define LOCAL_BARRIER barrier(CLK_LOCAL_MEM_FENCE);
#else
#define LOCAL_BARRIER
#endif

// VEC columns of B from column n on, each clamped to the last column: for the vectors of an
// edge group that reach past N.
#if TAIL_N && !LOCAL_B && !PACK_B
floatv load_b_lanes(__global const float* restrict B, int k, int n) {
  float lanes[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) lanes[l] = B_AT(k, min(n + l, N - 1));
  return VLOAD(lanes);
}
#endif

// Stores the VEC columns of v from column n on that lie inside the row.
#if TAIL_N
void store_lanes(floatv v, __global float* restrict row, int n) {
  float lanes[VEC];
  VSTORE(v, lanes);
#pragma unroll
  for (int l = 0; l < VEC; ++l)
    if (n + l < N) row[n + l] = lanes[l];
}
#endif

// The operands of step kk of the tile: column c of the B tile as a vector, row r of the A tile.
#if LOCAL_B
#define LOAD_B(G, kk, c) VLOAD(&Bs[(kk) * TN + (c)])
#elif PACK_B
#define LOAD_B(G, kk, c) VLOAD(&Bp[(k0 + (kk)) * TN + (c)])
#elif TAIL_N
#define LOAD_B(G, kk, c) \
  ((G) && n0 + (c) + VEC > N ? load_b_lanes(B, k0 + (kk), n0 + (c)) : B_VEC_AT(k0 + (kk), n0 + (c)))
#else
#define LOAD_B(G, kk, c) B_VEC_AT(k0 + (kk), n0 + (c))
#endif
#if LOCAL_A
#define LOAD_A(G, kk, r) As[(kk) * TM + (r)]
#else
#define LOAD_A(G, kk, r) A_AT(ROW(G, m0 + (r)), k0 + (kk))
#endif

// Step kk of the tile: the B vectors, then each A value against all of them.
#define MAC_STEP(G, kk)                                                                           \
  {                                                                                               \
    floatv bv[TY1 * NV];                                                                          \
    _Pragma("unroll") for (int j1 = 0; j1 < TY1; ++j1)                                            \
    _Pragma("unroll") for (int v = 0; v < NV; ++v) {                                              \
      const int c = j1 * TY2 * TY3 + ln * TY3 + v * VEC;                                         \
      bv[j1 * NV + v] = LOAD_B(G, kk, c);                                                         \
    }                                                                                             \
    _Pragma("unroll") for (int i1 = 0; i1 < TX1; ++i1)                                            \
    _Pragma("unroll") for (int i3 = 0; i3 < TX3; ++i3) {                                          \
      const int r = i1 * TX2 * TX3 + lm * TX3 + i3;                                               \
      const floatv a = (floatv)(LOAD_A(G, kk, r));                                                \
      _Pragma("unroll") for (int j = 0; j < TY1 * NV; ++j)                                        \
        acc[i1 * TX3 + i3][j] = fma(a, bv[j], acc[i1 * TX3 + i3][j]);                             \
    }                                                                                             \
  }

// The steps of one K tile: whole ones of TK (TK1 middle steps of TK2), and the last, partial
// one of KR (as whole inner steps of TK2 while they last, so that the inner loop stays
// unrolled; the last KR % TK2 steps in a plain loop: they run once per work-group, and
// unrolled, up to TK2 - 1 more copies of the step doubled the compile time).
#define STAGE_WHOLE(G) STAGE_A(G, TK) STAGE_B(G, TK)
#define STAGE_PARTIAL(G) STAGE_A(G, KR) STAGE_B(G, KR)
#define STEPS_WHOLE(G)                                         \
  UNROLL_MIDDLE for (int k1 = 0; k1 < TK1; ++k1)               \
  _Pragma("unroll") for (int k2 = 0; k2 < TK2; ++k2)           \
    MAC_STEP(G, k1 * TK2 + k2)
#define STEPS_PARTIAL(G)                                       \
  UNROLL_MIDDLE for (int k1 = 0; k1 < KR / TK2; ++k1)          \
  _Pragma("unroll") for (int k2 = 0; k2 < TK2; ++k2)           \
    MAC_STEP(G, k1 * TK2 + k2)                                 \
  _Pragma("unroll 1") for (int kk = KR / TK2 * TK2; kk < KR; ++kk) MAC_STEP(G, kk)

// Whether the tile at m0 or n0 passes the last row or column.
#if TAIL_M
#define PAST_M(m0) (m0 + TM > M)
#else
#define PAST_M(m0) false
#endif
#if TAIL_N
#define PAST_N(n0) (n0 + TN > N)
#else
#define PAST_N(n0) false
#endif

// PART(1) in an edge group, PART(0) elsewhere, chosen per part (between barriers).
#define ON_TILE(PART) \
  if (edge) {         \
    PART(1)           \
  } else {            \
    PART(0)           \
  }
#define AS_EDGE(PART) PART(1)
#define AS_INSIDE(PART) PART(0)

// acc to C; an edge group stores only the rows and columns inside.
#if TAIL_N
#define STORE_VECTOR(G, v, r, c) \
  if ((G) && (c) + VEC > N) store_lanes(v, &C[(r) * N], c); else VSTORE(v, &C[(r) * N + (c)]);
#else
#define STORE_VECTOR(G, v, r, c) VSTORE(v, &C[(r) * N + (c)]);
#endif
#define STORE(G)                                                                  \
  _Pragma("unroll") for (int i1 = 0; i1 < TX1; ++i1)                              \
  _Pragma("unroll") for (int i3 = 0; i3 < TX3; ++i3) {                            \
    const int r = m0 + i1 * TX2 * TX3 + lm * TX3 + i3;                            \
    if (!((G) && TAIL_M) || r < M) {                                              \
      _Pragma("unroll") for (int j1 = 0; j1 < TY1; ++j1)                          \
      _Pragma("unroll") for (int v = 0; v < NV; ++v) {                            \
        const int c = n0 + j1 * TY2 * TY3 + ln * TY3 + v * VEC;                   \
        STORE_VECTOR(G, acc[i1 * TX3 + i3][j1 * NV + v], r, c)                    \
      }                                                                           \
    }                                                                             \
  }

// The reduction over K and the store; ON picks the edge or inside code of each part.
#if TAIL_K
#define PARTIAL_K_STEP(ON)       \
  {                              \
    const int k0 = K - KR;       \
    ON(STAGE_PARTIAL)            \
    LOCAL_BARRIER                \
    ON(STEPS_PARTIAL)            \
  }
#else
#define PARTIAL_K_STEP(ON)
#endif
#define MATMUL_TILE(ON)                            \
  for (int k0 = 0; k0 < K - KR; k0 += TK) {        \
    ON(STAGE_WHOLE)                                \
    LOCAL_BARRIER                                  \
    ON(STEPS_WHOLE)                                \
    LOCAL_BARRIER                                  \
  }                                                \
  PARTIAL_K_STEP(ON)                               \
  ON(STORE)

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
#if PACK_B
  __global const float* restrict Bp = Y + (b * NP + get_group_id(0)) * (K * TN);  // the group's panel
#else
  __global const float* restrict B = Y + b * (K * N);
#endif
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

#if TAIL_M || TAIL_N
  // Whether the group's tile passes the last row or column: the same for all its work-items.
  const bool edge = PAST_M(m0) | PAST_N(n0);
#endif
#if (TAIL_M || TAIL_N) && (LOCAL_A || LOCAL_B)
  MATMUL_TILE(ON_TILE)  // chosen per part, so that no barrier sits under the condition
#elif TAIL_M || TAIL_N
  // No barriers: chosen once, the inside groups running the code of exact splits.
  if (edge) {
    MATMUL_TILE(AS_EDGE)
  } else {
    MATMUL_TILE(AS_INSIDE)
  }
#else
  MATMUL_TILE(AS_INSIDE)
#endif
}

#if PACK_B
// Row k of panel p of batch entry b: Yp[((b * NP + p) * K + k) * TN + j] = B(k, p * TN + j),
// the columns past N repeating the last one. One work-item per row of a panel, so that it
// copies contiguous floats (unless B is stored transposed).
__kernel void pack_b(__global const float* restrict Y, __global float* restrict Yp) {
  const int k = get_global_id(0) % K;
  const int p = get_global_id(0) / K;
  const int b = get_global_id(1);
  __global const float* restrict B = Y + b * (K * N);
  __global float* restrict row = Yp + ((b * NP + p) * K + k) * TN;
  const int n0 = p * TN;
  const int inside = min(TN, N - n0);  // at least 1: no panel lies wholly past N
  for (int j = 0; j < inside; ++j) row[j] = B_AT(k, n0 + j);
  for (int j = inside; j < TN; ++j) row[j] = B_AT(k, N - 1);
}
#endif
