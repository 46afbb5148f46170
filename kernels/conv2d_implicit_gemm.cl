// Implicit-GEMM 2-D convolution: out = W x im2col(data), with the im2col indexing done in the
// kernel and no im2col buffer. As a GEMM: M = CO (rows of the OIHW weights, already row-major
// M x K), N = N * OH * OW (output pixels, in NCHW output order), K = CI * KH * KW; B(k, p) is
// the input value under tap k of pixel p's window, zero in the padding.
//
// The register tiling is matmul.cl's, turned for a CPU: VEC runs along M (output channels),
// since a pixel's im2col column is contiguous in no layout while a vector of channels is one
// load from the staged weights; every B value is a scalar broadcast against the A vectors.
// Knobs (src/ops/conv2d_implicit_gemm_template.cpp):
//   tile_x = TX0..TX3 splits M padded to a multiple of 16, tile_y = TY0..TY3 splits N padded to
//            a multiple of 8 (work-groups, strided tiles per work-item, work-items, contiguous
//            elements per work-item), tile_k = TK0..TK2 splits K (staged steps, middle steps
//            unrolled when UNROLL_K, inner steps always unrolled).
//   VEC: float vector width along M; LOCAL_B: stage the im2col tile in local memory too.
// The weight tile is always staged in local memory, transposed (As[k * TM + row]) so that VEC
// channels are contiguous; rows past CO read as zero there. Pixels past N read the last pixel
// and are not stored. Tails need no guards in the reduction: only the padding of the image
// does. A work-item whose windows all lie inside the image, each run of TY3 pixels in one
// output row, reads its inputs at fixed offsets without bounds checks; the others check rows
// only where their runs are whole output rows (OW divides TY3: the columns are constants),
// and every input otherwise.
//
// floatv, VLOAD, VSTORE come from vector_types.cl and UNROLL_IF from conv_common.cl.

#define NPIX (N * OH * OW)
#define KDIM (CI * KH * KW)
#define TAPS (KH * KW)
#define TM (TX1 * TX2 * TX3)  // channels per work-group
#define TN (TY1 * TY2 * TY3)  // pixels per work-group
#define TK (TK1 * TK2)        // K step staged per barrier
#define NV (TX3 / VEC)        // vectors per contiguous channel run
#define NA (TX1 * NV)         // weight vectors per work-item
#define NP (TY1 * TY3)        // pixels per work-item
#define WG (TX2 * TY2)

// Pixel q of a work-item: j1-th strided run, j3-th pixel in it.
#define PIXEL(p0, ln, j1, j3) ((p0) + (j1) * TY2 * TY3 + (ln) * TY3 + (j3))

// Input offset of the top-left of pixel p's window (may lie in the padding), with its input
// row iy0 and column ix0; p past the last pixel is read as the last pixel.
#define WINDOW_ORIGIN(p, iy0, ix0, base)                                       \
  {                                                                            \
    const int pc_ = min((p), NPIX - 1);                                        \
    const int img_ = pc_ / (OH * OW), r_ = pc_ % (OH * OW);                    \
    iy0 = r_ / OW * STRIDE - PAD;                                              \
    ix0 = r_ % OW * STRIDE - PAD;                                              \
    base = img_ * (CI * H * W) + iy0 * W + ix0;                                \
  }

// Tap k0 + k1 * TK2 + k2 = (c, ky, kx) of the OIHW order: kernel row and column, and the
// offset of its input from a window's origin. Where the steps start channels (TAPS divides
// TK2, or TK), the unrolled steps' ky, kx and offsets within a channel are constants.
#if TK2 % TAPS == 0
#define TAP_CHANNEL(k0, k1, k2) ((k0) / TAPS + (k1) * (TK2 / TAPS) + (k2) / TAPS)
#define TAP_INDEX(k0, k1, k2) ((k2) % TAPS)
#elif TK % TAPS == 0
#define TAP_CHANNEL(k0, k1, k2) ((k0) / TAPS + ((k1) * TK2 + (k2)) / TAPS)
#define TAP_INDEX(k0, k1, k2) (((k1) * TK2 + (k2)) % TAPS)
#else
#define TAP_CHANNEL(k0, k1, k2) (((k0) + (k1) * TK2 + (k2)) / TAPS)
#define TAP_INDEX(k0, k1, k2) (((k0) + (k1) * TK2 + (k2)) % TAPS)
#endif
#define TAP(k0, k1, k2)                                                              \
  const int ky = TAP_INDEX(k0, k1, k2) / KW, kx = TAP_INDEX(k0, k1, k2) % KW;        \
  const int off = TAP_CHANNEL(k0, k1, k2) * (H * W) + ky * DIL * W + kx * DIL

// B(k, p) with bounds checks: inputs in the padding are zero (the load then reads element 0).
float guarded_input(__global const float* restrict data, int iy0, int ix0, int base, int ky, int kx, int off) {
  const int iy = iy0 + ky * DIL, ix = ix0 + kx * DIL;
  const bool inb = iy >= 0 && iy < H && ix >= 0 && ix < W;
  const float v = data[inb ? base + off : 0];
  return inb ? v : 0.0f;
}

// The FMAs of one staged K step: FETCH(kk, k1, k2) fills float b[NP] with B(k0 + kk, pixel).
#define REDUCE_STAGED(FETCH)                                                                      \
  UNROLL_IF(UNROLL_K)                                                                             \
  for (int k1 = 0; k1 < TK1; ++k1) {                                                              \
    PRAGMA_(unroll)                                                                               \
    for (int k2 = 0; k2 < TK2; ++k2) {                                                            \
      const int kk = k1 * TK2 + k2;                                                               \
      floatv a[NA];                                                                               \
      PRAGMA_(unroll)                                                                             \
      for (int i1 = 0; i1 < TX1; ++i1)                                                            \
        PRAGMA_(unroll)                                                                           \
        for (int v = 0; v < NV; ++v) a[i1 * NV + v] = VLOAD(&As[kk * TM + i1 * TX2 * TX3 + lm * TX3 + v * VEC]); \
      float b[NP];                                                                                \
      FETCH(kk, k1, k2)                                                                           \
      PRAGMA_(unroll)                                                                             \
      for (int j = 0; j < NP; ++j)                                                                \
        PRAGMA_(unroll)                                                                           \
        for (int i = 0; i < NA; ++i) acc[j][i] = fma((floatv)(b[j]), a[i], acc[j][i]);            \
    }                                                                                             \
  }

// From the staged im2col tile.
#define FETCH_STAGED(kk, k1, k2)                                                          \
  PRAGMA_(unroll)                                                                 \
  for (int j1 = 0; j1 < TY1; ++j1)                                                \
    PRAGMA_(unroll)                                                               \
    for (int j3 = 0; j3 < TY3; ++j3) b[j1 * TY3 + j3] = Bs[(kk) * TN + PIXEL(0, ln, j1, j3)];

// Interior work-items: each run's inputs at fixed offsets from its first pixel's, unchecked.
#define FETCH_INSIDE(kk, k1, k2)                                                                 \
  {                                                                                      \
    TAP(k0, k1, k2);                                                                         \
    PRAGMA_(unroll)                                                                      \
    for (int j1 = 0; j1 < TY1; ++j1)                                                     \
      PRAGMA_(unroll)                                                                    \
      for (int j3 = 0; j3 < TY3; ++j3) b[j1 * TY3 + j3] = (run[j1] + off)[j3 * STRIDE];  \
  }

// Work-items whose windows reach into the padding: every input checked.
#define FETCH_GUARDED(kk, k1, k2)                                                                      \
  {                                                                                            \
    TAP(k0, k1, k2);                                                                               \
    PRAGMA_(unroll)                                                                            \
    for (int j = 0; j < NP; ++j) b[j] = guarded_input(data, iy0[j], ix0[j], base[j], ky, kx, off); \
  }

// Runs of whole output rows (OW divides TY3; runs start at multiples of TY3, so at row starts):
// a pixel's column, and so whether a tap's column lies in the image, is a constant; only the
// row is checked, once per row and tap. Rows past the last pixel read as zero (not stored).
#if TY3 % OW == 0
#define NR (TY1 * (TY3 / OW))  // output rows per work-item
#define FETCH_EDGE(kk, k1, k2)                                                            \
  {                                                                                       \
    TAP(k0, k1, k2);                                                                      \
    PRAGMA_(unroll)                                                                       \
    for (int r = 0; r < NR; ++r) {                                                        \
      const bool row_in = row_iy0[r] + ky * DIL >= 0 && row_iy0[r] + ky * DIL < H;        \
      __global const float* src = data + (row_in ? row_base[r] + off : 0);                \
      PRAGMA_(unroll)                                                                     \
      for (int ox = 0; ox < OW; ++ox) {                                                   \
        const int ix = ox * STRIDE - PAD + kx * DIL;                                      \
        const float v = ix >= 0 && ix < W && ox * STRIDE < N * CI * H * W ? src[ox * STRIDE] : 0.0f; \
        b[r * OW + ox] = row_in ? v : 0.0f;                                               \
      }                                                                                   \
    }                                                                                     \
  }
#else
#define FETCH_EDGE FETCH_GUARDED
#endif

// Copies the weight tile at (m0, k0) to As[k * TM + row], zero past CO: each work-item copies
// whole rows, read along K (no index division per element).
void stage_a(__global const float* restrict weight, __local float* As, int m0, int k0, int lid) {
  for (int r = lid; r < TM; r += WG) {
    __global const float* row = weight + (m0 + r) * KDIM + k0;
    if (m0 + r < CO) {
      for (int c = 0; c < TK; ++c) As[c * TM + r] = row[c];
    } else {
      for (int c = 0; c < TK; ++c) As[c * TM + r] = 0.0f;
    }
  }
}

#if LOCAL_B
// Copies the im2col tile at (k0, p0) to Bs[k * TN + col], bounds-checked.
void stage_b(__global const float* restrict data, __local float* Bs, int p0, int k0, int lid) {
  for (int t = lid; t < TK * TN; t += WG) {
    const int r = t / TN, col = t % TN;
    int iy0, ix0, base;
    WINDOW_ORIGIN(p0 + col, iy0, ix0, base);
    TAP(k0, 0, r);
    Bs[r * TN + col] = guarded_input(data, iy0, ix0, base, ky, kx, off);
  }
}
#endif

__kernel __attribute__((reqd_work_group_size(TY2, TX2, 1)))
void conv2d_implicit_gemm(__global const float* restrict data, __global const float* restrict weight,
                          __global float* restrict out) {
  const int ln = get_local_id(0);  // along N: neighbours compute neighbouring pixels
  const int lm = get_local_id(1);
  const int p0 = get_group_id(0) * TN;
  const int m0 = get_group_id(1) * TM;
  const int lid = lm * TY2 + ln;

#if !LOCAL_B
  // The work-item's windows; `inside`: all inside the image, each run's inputs STRIDE apart.
  int iy0[NP], ix0[NP], base[NP];
  bool inside = true;
#pragma unroll
  for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
    for (int j3 = 0; j3 < TY3; ++j3) {
      const int j = j1 * TY3 + j3;
      WINDOW_ORIGIN(PIXEL(p0, ln, j1, j3), iy0[j], ix0[j], base[j]);
      inside = inside && iy0[j] >= 0 && iy0[j] + (KH - 1) * DIL < H && ix0[j] >= 0 &&
               ix0[j] + (KW - 1) * DIL < W && base[j] == base[j1 * TY3] + j3 * STRIDE;
    }
#if TY3 % OW == 0
  // Each output row's first input row and the offset of its window origin's row, column -PAD.
  int row_iy0[NR], row_base[NR];
#pragma unroll
  for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
    for (int q = 0; q < TY3 / OW; ++q) {
      const int p = PIXEL(p0, ln, j1, q * OW), img = p / (OH * OW), oy = p / OW % OH;
      row_iy0[j1 * (TY3 / OW) + q] = p < NPIX ? oy * STRIDE - PAD : H;
      row_base[j1 * (TY3 / OW) + q] = img * (CI * H * W) + (oy * STRIDE - PAD) * W - PAD;
    }
#endif
  // Where each run's inputs start (read only when `inside`).
  __global const float* run[TY1];
#pragma unroll
  for (int j1 = 0; j1 < TY1; ++j1) run[j1] = data + (inside ? base[j1 * TY3] : 0);
#endif

  floatv acc[NP][NA];
#pragma unroll
  for (int j = 0; j < NP; ++j)
#pragma unroll
    for (int i = 0; i < NA; ++i) acc[j][i] = (floatv)(0.0f);

  __local float As[TK * TM];
#if LOCAL_B
  __local float Bs[TK * TN];
#endif

  for (int k0 = 0; k0 < KDIM; k0 += TK) {
    stage_a(weight, As, m0, k0, lid);
#if LOCAL_B
    stage_b(data, Bs, p0, k0, lid);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);

#if LOCAL_B
    REDUCE_STAGED(FETCH_STAGED)
#else
    // The branch holds no barrier, so work-items of one group may take different ways.
    if (inside) {
      REDUCE_STAGED(FETCH_INSIDE)
    } else {
      REDUCE_STAGED(FETCH_EDGE)
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Each vector's VEC channels go to VEC output planes; padded rows and pixels are not stored.
#pragma unroll
  for (int j1 = 0; j1 < TY1; ++j1)
#pragma unroll
    for (int j3 = 0; j3 < TY3; ++j3) {
      const int p = PIXEL(p0, ln, j1, j3);
      if (p >= NPIX) continue;
      __global float* o = out + p / (OH * OW) * (CO * OH * OW) + p % (OH * OW);
#pragma unroll
      for (int i1 = 0; i1 < TX1; ++i1)
#pragma unroll
        for (int v = 0; v < NV; ++v) {
          float lanes[VEC];
          VSTORE(acc[j1 * TY3 + j3][i1 * NV + v], lanes);
          const int m = m0 + i1 * TX2 * TX3 + lm * TX3 + v * VEC;
          if (m + VEC <= CO) {
#pragma unroll
            for (int l = 0; l < VEC; ++l) o[(m + l) * (OH * OW)] = lanes[l];
          } else {
            for (int l = 0; l < CO - m; ++l) o[(m + l) * (OH * OW)] = lanes[l];
          }
        }
    }
}
