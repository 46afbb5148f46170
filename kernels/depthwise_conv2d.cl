// Depthwise 2-D convolution (channel multiplier 1), NCHW input [N][C][H][W], weights
// [C][1][KH][KW], output [N][C][OH][OW], float32. The knobs mean what they mean in AutoTVM's
// depthwise_conv2d_nchw template (see src/ops/depthwise_conv2d_template.cpp):
//   tile_f = TF0 x TF1 x TF2 x TF3 splits C: work-groups, virtual threads (strided tiles per
//            work-item), work-items, contiguous channels per work-item. Likewise tile_y (TY*)
//            splits OH and tile_x (TX*) splits OW. The batch is fused with the channel groups.
//   The work-group's input window for its channels is fetched once into local memory by all
//   work-items together (UNROLL_FETCH unrolls that loop: unroll_explicit); UNROLL_KY and
//   UNROLL_KX say which window loops are unrolled (from auto_unroll_max_step).
//   VEC: outputs computed together in float vectors along each work-item's TX3 contiguous
//   columns (1 for the AutoTVM-compatible sketch; the vec knob of depthwise_conv2d_vec).
// The splits are exact factorizations; padding is the only bounds check. Tile macros are in
// conv_common.cl.

// Input rows and columns the work-group reads for each of its channels.
#define IN_TH ((TOY - 1) * STRIDE + (KH - 1) * DIL + 1)
#define IN_TW ((TOX - 1) * STRIDE + (KW - 1) * DIL + 1)
#define IN_TILE (TF * IN_TH * IN_TW)
#define W_TILE (TF * KH * KW)

// VEC window inputs for VEC neighbouring outputs (floatv etc. from vector_types.cl); the
// staged window is zero-padded, so no bounds checks.
floatv load_window(__local const float* p) {
  if (STRIDE == 1) return VLOAD(p);
  float lanes[VEC];
#pragma unroll
  for (int l = 0; l < VEC; ++l) lanes[l] = p[l * STRIDE];
  return VLOAD(lanes);
}

__kernel __attribute__((reqd_work_group_size(TX2, TY2, TF2)))
void depthwise_conv2d(__global const float* restrict data, __global const float* restrict weight,
                      __global float* restrict out) {
  DIRECT_TILE_ORIGIN;
  const int lid = (lf * TY2 + ly) * TX2 + lx;

  __local float in_s[IN_TILE];
  __local float w_s[W_TILE];
  __global const float* in_n = data + ((size_t)n * C + f0) * H * W;
  UNROLL_IF(UNROLL_FETCH)
  for (int s = 0; s < (IN_TILE + WG - 1) / WG; ++s) {
    const int t = lid + s * WG;
    if (t < IN_TILE) {
      const int c = t / (IN_TH * IN_TW), r = t / IN_TW % IN_TH, col = t % IN_TW;
      const int iy = y0 * STRIDE - PAD + r, ix = x0 * STRIDE - PAD + col;
      in_s[t] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? in_n[(c * H + iy) * W + ix] : 0.0f;
    }
  }
  UNROLL_IF(UNROLL_FETCH)
  for (int s = 0; s < (W_TILE + WG - 1) / WG; ++s) {
    const int t = lid + s * WG;
    if (t < W_TILE) w_s[t] = weight[f0 * KH * KW + t];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  floatv acc[NF][NY][NXV];
  ZERO_TILE(acc);

  UNROLL_IF(UNROLL_KY)
  for (int ky = 0; ky < KH; ++ky)
    UNROLL_IF(UNROLL_KX)
    for (int kx = 0; kx < KW; ++kx)
#pragma unroll
      for (int v = 0; v < TF1; ++v)
#pragma unroll
        for (int i = 0; i < TF3; ++i) {
          const int f = TILE_POS(v, TF2, lf, TF3, i);
          const floatv wv = (floatv)(w_s[(f * KH + ky) * KW + kx]);
          __local const float* in_f = in_s + f * IN_TH * IN_TW;
#pragma unroll
          for (int vy = 0; vy < TY1; ++vy)
#pragma unroll
            for (int yi = 0; yi < TY3; ++yi)
#pragma unroll
              for (int vx = 0; vx < TX1; ++vx)
#pragma unroll
                for (int xv = 0; xv < TX3 / VEC; ++xv) {
                  const int yy = TILE_POS(vy, TY2, ly, TY3, yi), xx = TILE_POS(vx, TX2, lx, TX3, xv * VEC);
                  floatv* a = &acc[v * TF3 + i][vy * TY3 + yi][vx * (TX3 / VEC) + xv];
                  *a = fma(wv, load_window(in_f + (yy * STRIDE + ky * DIL) * IN_TW + xx * STRIDE + kx * DIL), *a);
                }
        }

  STORE_TILE(out, acc, C);
}
