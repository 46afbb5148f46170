// Winograd F(M x M, 3 x 3) on channel-blocked activations (conv2d_winograd_f2_nchwc,
// conv2d_winograd_f4_nchwc; src/ops/conv2d_winograd_nchwc_template.cpp): 3x3 kernels, stride
// 1, no dilation; NCHW16c input [N][CI/16][H][W][16] and output [N][CO/16][OH][OW][16].
//
// The output is cut into M x M tiles, P = N * TILES_Y * TILES_X of them; A = M + 2 is the edge
// of an input tile and A2 = A * A the number of components. With V = B^T d B (the input tile
// transformed), U' = G' g G'^T (the weights, transformed once on the host: src/ops/winograd.h,
// layout [CO/16][A2][CI][16]) and A'^T = A^T D (the diagonal of G folded into the output
// transform), Y = A'^T [sum over channels of U' .* V] A': A2 independent products of
// (tiles x CI) by (CI x CO), one per component.
//
// winograd_input_transform (the pre-pass) writes V for every tile and channel as [P][A2][CIP]
// (CIP: CI rounded up to 16), one work-item per tile and 16-channel block, in float16 vectors;
// conv2d_winograd_nchwc then gives each work-item TT consecutive tiles and OCV vectors of VEC
// output channels. With FUSED_CI there is no pre-pass: the work-item transforms its own tiles,
// FUSED_CI channels at a time, into private memory (each group of output channels repeats
// that work, but V never goes through memory). For every component it sums the channels (one
// weight vector load per OCV x TB fused multiply-adds, the tiles' V broadcast) into its
// component sums in private memory, and transforms them back once all channels are in: one
// store of a sum per component, where folding each component's sum into the output tiles at
// once read and wrote the partial tiles 20 times per sum for F(4x4) (docs/templates.md). The
// padding lanes of the weights are zero, and so are the output lanes past CO. TB is TT up to 8
// tiles; past that the work-item sums TB tiles at a time (their sums in registers) and reads a
// component's weights once per block from the cache instead of once per TB tiles from memory:
// where the transformed weights outgrow the caches (ResNet-18's 7x7 layer: 16.8 MB).
//
// Macros: WM (the tile, M), WA (A), WA2 (A2), NTILES (P), BT_APPLY (B^T), AT_APPLY (A'^T).
// Knobs: VEC, OCV (tile_oc), TT (tiles), WG (work_group), UNROLL_CI (unroll_ci), FUSED_CI
// (fused_ci; 0: the pre-pass); TB (the template's register tiles, a divisor of TT); STREAM_V
// (the template's, from V's size).

#define WA (WM + 2)
#define WA2 (WA * WA)
#define TILES_Y ((OH + WM - 1) / WM)
#define TILES_X ((OW + WM - 1) / WM)
#define NTILES (N * TILES_Y * TILES_X)
#define CIP ((CI + 15) / 16 * 16)
#define COP ((CO + 15) / 16 * 16)
#define FB ((COP + VEC * OCV - 1) / (VEC * OCV))  // channel groups
#define UNROLL_BY(n) PRAGMA_(unroll n)  // n expanded first: UNROLL_BY(UNROLL_CI) -> unroll 4

// y[i] = sum_k BT[i][k] x[k]: B^T applied to one column or row of WA vectors.
#if WM == 2
#define BT_APPLY(x, y)  \
  y[0] = x[0] - x[2];   \
  y[1] = x[1] + x[2];   \
  y[2] = x[2] - x[1];   \
  y[3] = x[1] - x[3];
// y[i] = sum_k A'^T[i][k] x[k], A'^T = {{1, 1/2, 1/2, 0}, {0, 1/2, -1/2, -1}}.
#define AT_APPLY(x, y)                \
  {                                   \
    y[0] = x[0] + 0.5f * (x[1] + x[2]); \
    y[1] = 0.5f * (x[1] - x[2]) - x[3]; \
  }
#elif WM == 4
#define BT_APPLY(x, y)                                          \
  y[0] = 4.0f * x[0] - 5.0f * x[2] + x[4];                      \
  y[1] = x[3] + x[4] - 4.0f * (x[1] + x[2]);                    \
  y[2] = x[4] - x[3] + 4.0f * (x[1] - x[2]);                    \
  y[3] = x[4] - x[2] + 2.0f * (x[3] - x[1]);                    \
  y[4] = x[4] - x[2] + 2.0f * (x[1] - x[3]);                    \
  y[5] = 4.0f * x[1] - 5.0f * x[3] + x[5];
// y[i] = sum_k A'^T[i][k] x[k], A'^T = {{1/4, -1/6, -1/6, 1/24, 1/24, 0}, {0, -1/6, 1/6, 1/12,
// -1/12, 0}, {0, -1/6, -1/6, 1/6, 1/6, 0}, {0, -1/6, 1/6, 1/3, -1/3, 1}}.
#define AT_APPLY(x, y)                                                      \
  {                                                                         \
    const floatv s12 = x[1] + x[2], d12 = x[2] - x[1];                      \
    const floatv s34 = x[3] + x[4], d34 = x[3] - x[4];                      \
    y[0] = 0.25f * x[0] - s12 * (1.0f / 6) + s34 * (1.0f / 24);             \
    y[1] = d12 * (1.0f / 6) + d34 * (1.0f / 12);                            \
    y[2] = (s34 - s12) * (1.0f / 6);                                        \
    y[3] = d12 * (1.0f / 6) + d34 * (1.0f / 3) + x[5];                      \
  }
#endif

// V = B^T d B for tile p and the 16 channels of block cb: the A x A input tile d (zero past
// the image's edges) read from the NCHW16c image, transformed by columns, then by rows.
void winograd_input_tile(__global const float* restrict data, const int p, const int cb, float16 v[WA2]) {
  const int n = p / (TILES_Y * TILES_X), ty = p / TILES_X % TILES_Y, tx = p % TILES_X;
  __global const float* image = data + ((size_t)n * (CIP / 16) + cb) * H * W * 16;
  float16 d[WA][WA], t[WA][WA];
#pragma unroll
  for (int i = 0; i < WA; ++i) {
    const int iy = ty * WM - PAD + i;
#pragma unroll
    for (int j = 0; j < WA; ++j) {
      const int ix = tx * WM - PAD + j;
      d[i][j] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? vload16(0, image + (iy * W + ix) * 16) : (float16)(0.0f);
    }
  }
#pragma unroll
  for (int j = 0; j < WA; ++j) {  // t = B^T d, column by column
    float16 x[WA], y[WA];
#pragma unroll
    for (int k = 0; k < WA; ++k) x[k] = d[k][j];
    BT_APPLY(x, y)
#pragma unroll
    for (int i = 0; i < WA; ++i) t[i][j] = y[i];
  }
#pragma unroll
  for (int i = 0; i < WA; ++i) {  // V = t B, row by row
    float16 y[WA];
    BT_APPLY(t[i], y)
#pragma unroll
    for (int j = 0; j < WA; ++j) v[i * WA + j] = y[j];
  }
}

// With STREAM_V (a V far larger than a core's caches), on a CPU, the pre-pass stores V past
// the caches: a plain store first reads each line it fills (VGG-16's 224x224 layer: 28.9 MB
// of V, the layer 1.25x faster; docs/templates.md). V's lines are 64-byte aligned (CIP).
#if STREAM_V && (defined(__x86_64__) || defined(__aarch64__)) && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define STORE_V(x, p) __builtin_nontemporal_store((x), (__global float16*)(p))
#endif
#endif
#ifndef STORE_V
#define STORE_V(x, p) vstore16((x), 0, (p))
#endif

// NDRange: (NTILES rounded up to 4, CIP / 16); work-groups 4 x 1. Only without FUSED_CI.
__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void winograd_input_transform(__global const float* restrict data, __global float* restrict v) {
  const int p = get_global_id(0), cb = get_global_id(1);
  if (p >= NTILES) return;
  float16 tile[WA2];
  winograd_input_tile(data, p, cb, tile);
  __global float* dst = v + (size_t)p * WA2 * CIP + cb * 16;
#pragma unroll
  for (int k = 0; k < WA2; ++k) STORE_V(tile[k], dst + k * CIP);
}

// The transformed input of the work-item's tiles: with FUSED_CI, FUSED_CI channels of them at
// a time in private memory, [TT][A2][FUSED_CI]; else the pre-pass's, one pointer per tile.
#if FUSED_CI
#define V_TILES const float* restrict vt
#define V_AT(t, k, c) vt[((t) * WA2 + (k)) * FUSED_CI + (c)]
#else
#define V_TILES __global const float* const* vp
#define V_AT(t, k, c) vp[t][(k) * CIP + (c)]
#endif

// Sums channels [c0, c0 + cn) into the component sums m (added to them where c0 > 0): for every
// component, TB tiles at a time, weights times V over the channels. cn is a constant after
// inlining, which lets UNROLL_CI unroll the channel loop.
static inline __attribute__((always_inline)) void sum_channels(V_TILES, __global const float* const* wp,
                                                                const int c0, const int cn,
                                                                floatv m[WA2][TT][OCV]) {
#pragma unroll 1
  for (int k = 0; k < WA2; ++k) {
#pragma unroll 1
    for (int b = 0; b < TT; b += TB) {  // TB tiles at a time, their weights still in cache
      floatv acc[TB][OCV];
#pragma unroll
      for (int t = 0; t < TB; ++t)
#pragma unroll
        for (int j = 0; j < OCV; ++j) acc[t][j] = c0 > 0 ? m[k][b + t][j] : (floatv)(0.0f);
      UNROLL_BY(UNROLL_CI)
      for (int c = 0; c < cn; ++c) {
        floatv wv[OCV];
#pragma unroll
        for (int j = 0; j < OCV; ++j) wv[j] = VLOAD(wp[j] + (k * CI + c0 + c) * 16);
#pragma unroll
        for (int t = 0; t < TB; ++t) {
          const floatv x = (floatv)(V_AT(b + t, k, c));
#pragma unroll
          for (int j = 0; j < OCV; ++j) acc[t][j] = fma(x, wv[j], acc[t][j]);
        }
      }
#pragma unroll
      for (int t = 0; t < TB; ++t)
#pragma unroll
        for (int j = 0; j < OCV; ++j) m[k][b + t][j] = acc[t][j];
    }
  }
}

#if FUSED_CI
// Transforms channels [c0, c0 + cn) of the work-item's tiles (from tile p0; tiles past NTILES
// repeat the last one) into vt.
static inline __attribute__((always_inline)) void transform_chunk(__global const float* restrict data,
                                                                   const int p0, const int c0, const int cn,
                                                                   float* restrict vt) {
#pragma unroll 1
  for (int t = 0; t < TT; ++t)
#pragma unroll 1
    for (int b = 0; b * 16 < cn; ++b) {
      float16 tile[WA2];
      winograd_input_tile(data, min(p0 + t, NTILES - 1), c0 / 16 + b, tile);
#pragma unroll
      for (int k = 0; k < WA2; ++k) vstore16(tile[k], 0, vt + (t * WA2 + k) * FUSED_CI + b * 16);
    }
}
#endif

// NDRange: (ceil(NTILES / TT) rounded up to WG, FB); work-groups WG x 1. The first argument is
// the pre-pass's V, or with FUSED_CI the NCHW16c input itself.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void conv2d_winograd_nchwc(__global const float* restrict v, __global const float* restrict weight,
                           __global float* restrict out) {
  const int pb = get_global_id(0);
  if (pb * TT >= NTILES) return;
  const int f0 = get_global_id(1) * (VEC * OCV);

  __global const float* wp[OCV];  // vector j's weights; one wholly past COP reads vector 0's
#pragma unroll
  for (int j = 0; j < OCV; ++j) {
    const int f = f0 + j * VEC < COP ? f0 + j * VEC : f0;
    wp[j] = weight + (size_t)(f / 16) * WA2 * CI * 16 + f % 16;
  }
  floatv m[WA2][TT][OCV];  // the component sums, transformed back once all channels are in

#if FUSED_CI
  float vt[TT * WA2 * FUSED_CI];
#pragma unroll 1
  for (int c0 = 0; c0 + FUSED_CI <= CI; c0 += FUSED_CI) {
    transform_chunk(v, pb * TT, c0, FUSED_CI, vt);
    sum_channels(vt, wp, c0, FUSED_CI, m);
  }
#if CI % FUSED_CI
  transform_chunk(v, pb * TT, CI / FUSED_CI * FUSED_CI, CI % FUSED_CI, vt);
  sum_channels(vt, wp, CI / FUSED_CI * FUSED_CI, CI % FUSED_CI, m);
#endif
#else
  __global const float* vp[TT];  // tiles past NTILES read the last one
#pragma unroll
  for (int t = 0; t < TT; ++t) vp[t] = v + (size_t)min(pb * TT + t, NTILES - 1) * WA2 * CIP;
  sum_channels(vp, wp, 0, CI, m);
#endif

#pragma unroll
  for (int t = 0; t < TT; ++t) {
    const int p = pb * TT + t;
    if (p >= NTILES) break;
    const int n = p / (TILES_Y * TILES_X), ty = p / TILES_X % TILES_Y, tx = p % TILES_X;
#pragma unroll
    for (int j = 0; j < OCV; ++j) {
      const int f = f0 + j * VEC;
      if (f >= COP) break;
      __global float* plane = out + ((size_t)n * COP + f / 16 * 16) * OH * OW + f % 16;
      floatv r[WM][WA];  // A'^T applied to every column of the component sums
#pragma unroll
      for (int col = 0; col < WA; ++col) {
        floatv x[WA], y[WM];
#pragma unroll
        for (int row = 0; row < WA; ++row) x[row] = m[row * WA + col][t][j];
        AT_APPLY(x, y)
#pragma unroll
        for (int row = 0; row < WM; ++row) r[row][col] = y[row];
      }
#pragma unroll
      for (int row = 0; row < WM; ++row) {
        const int oy = ty * WM + row;
        floatv y[WM];  // then to every row: the output tile's row
        AT_APPLY(r[row], y)
#pragma unroll
        for (int c = 0; c < WM; ++c) {
          const int ox = tx * WM + c;
          if (oy < OH && ox < OW) VSTORE(y[c], plane + (oy * OW + ox) * 16);
        }
      }
    }
  }
}
