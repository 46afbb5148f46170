// Direct 2-D convolution, NCHW input [N][CI][H][W], OIHW weights [CO][CI][KH][KW], output
// [N][CO][OH][OW], float32. The knobs mean what they mean in AutoTVM's conv2d_nchw template
// (see src/ops/conv2d_templates.cpp):
//   tile_f = TF0 x TF1 x TF2 x TF3 splits CO: work-groups, virtual threads (strided tiles per
//            work-item), work-items, contiguous channels per work-item. Likewise tile_y (TY*)
//            splits OH and tile_x (TX*) splits OW. The batch is fused with the channel groups.
//   tile_rc = RC0 x RC1, tile_ry = RY0 x RY1, tile_rx = RX0 x RX1 split the reduction over CI,
//            KH and KW: the outer factors step through it, and with LOCAL each step's input
//            and weight tiles are fetched into local memory by all work-items together.
//   UNROLL_RC / UNROLL_RY / UNROLL_RX: which inner reduction loops are unrolled (from
//            auto_unroll_max_step); UNROLL_FETCH: the fetch loops too (unroll_explicit).
// The splits are exact factorizations; padding is the only bounds check. Tile macros are in
// conv_common.cl.
#if VEC != 1
#error "conv2d_direct.cl computes scalars: VEC must be 1"
#endif

#if LOCAL
// Input rows and columns one reduction step reads for the whole work-group.
#define IN_TH ((TOY - 1) * STRIDE + (RY1 - 1) * DIL + 1)
#define IN_TW ((TOX - 1) * STRIDE + (RX1 - 1) * DIL + 1)
#define IN_TILE (RC1 * IN_TH * IN_TW)
#define W_TILE (TF * RC1 * RY1 * RX1)
#endif

__kernel __attribute__((reqd_work_group_size(TX2, TY2, TF2)))
void conv2d(__global const float* restrict data, __global const float* restrict weight,
            __global float* restrict out) {
  DIRECT_TILE_ORIGIN;

  floatv acc[NF][NY][NXV];  // VEC is 1 here: floats
  ZERO_TILE(acc);

#if LOCAL
  __local float in_s[IN_TILE];
  __local float w_s[W_TILE];
  const int lid = (lf * TY2 + ly) * TX2 + lx;
#endif

  for (int rco = 0; rco < RC0; ++rco)
    for (int ryo = 0; ryo < RY0; ++ryo)
      for (int rxo = 0; rxo < RX0; ++rxo) {
        const int c0 = rco * RC1, ky0 = ryo * RY1, kx0 = rxo * RX1;
        __global const float* in_n = data + ((size_t)n * CI + c0) * H * W;
#if LOCAL
        UNROLL_IF(UNROLL_FETCH)
        for (int s = 0; s < (IN_TILE + WG - 1) / WG; ++s) {
          const int t = lid + s * WG;
          if (t < IN_TILE) {
            const int c = t / (IN_TH * IN_TW), r = t / IN_TW % IN_TH, col = t % IN_TW;
            const int iy = y0 * STRIDE - PAD + ky0 * DIL + r, ix = x0 * STRIDE - PAD + kx0 * DIL + col;
            in_s[t] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? in_n[(c * H + iy) * W + ix] : 0.0f;
          }
        }
        UNROLL_IF(UNROLL_FETCH)
        for (int s = 0; s < (W_TILE + WG - 1) / WG; ++s) {
          const int t = lid + s * WG;
          if (t < W_TILE) {
            const int f = t / (RC1 * RY1 * RX1), c = t / (RY1 * RX1) % RC1, ry = t / RX1 % RY1, rx = t % RX1;
            w_s[t] = weight[(((f0 + f) * CI + c0 + c) * KH + ky0 + ry) * KW + kx0 + rx];
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        UNROLL_IF(UNROLL_RC)
        for (int rc = 0; rc < RC1; ++rc)
          UNROLL_IF(UNROLL_RY)
          for (int ry = 0; ry < RY1; ++ry)
            UNROLL_IF(UNROLL_RX)
            for (int rx = 0; rx < RX1; ++rx) {
              float wv[NF], iv[NY][NX];
#pragma unroll
              for (int v = 0; v < TF1; ++v)
#pragma unroll
                for (int i = 0; i < TF3; ++i) {
                  const int f = TILE_POS(v, TF2, lf, TF3, i);
#if LOCAL
                  wv[v * TF3 + i] = w_s[((f * RC1 + rc) * RY1 + ry) * RX1 + rx];
#else
                  wv[v * TF3 + i] = weight[(((f0 + f) * CI + c0 + rc) * KH + ky0 + ry) * KW + kx0 + rx];
#endif
                }
#pragma unroll
              for (int vy = 0; vy < TY1; ++vy)
#pragma unroll
                for (int yi = 0; yi < TY3; ++yi)
#pragma unroll
                  for (int vx = 0; vx < TX1; ++vx)
#pragma unroll
                    for (int xi = 0; xi < TX3; ++xi) {
                      const int yy = TILE_POS(vy, TY2, ly, TY3, yi), xx = TILE_POS(vx, TX2, lx, TX3, xi);
#if LOCAL
                      iv[vy * TY3 + yi][vx * TX3 + xi] =
                          in_s[(rc * IN_TH + yy * STRIDE + ry * DIL) * IN_TW + xx * STRIDE + rx * DIL];
#else
                      const int iy = (y0 + yy) * STRIDE - PAD + (ky0 + ry) * DIL;
                      const int ix = (x0 + xx) * STRIDE - PAD + (kx0 + rx) * DIL;
                      iv[vy * TY3 + yi][vx * TX3 + xi] =
                          (iy >= 0 && iy < H && ix >= 0 && ix < W) ? in_n[(rc * H + iy) * W + ix] : 0.0f;
#endif
                    }
#pragma unroll
              for (int i = 0; i < NF; ++i)
#pragma unroll
                for (int j = 0; j < NY; ++j)
#pragma unroll
                  for (int k = 0; k < NX; ++k) acc[i][j][k] = fma(wv[i], iv[j][k], acc[i][j][k]);
            }
#if LOCAL
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
      }

  STORE_TILE(out, acc, CO);
}
