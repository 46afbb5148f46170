// Direct 2-D convolution vectorized over output channels (TVM's x86 conv2d_NCHWc schedule,
// oneDNN's blocked direct convolution): each work-item computes OCV float vectors of VEC
// output channels times a TOH x TOW block of output pixels, and for every input value loaded
// once broadcasts it against the weight vectors. The weights come packed as OIHW16o
// ([ceil(CO/16)][CI][KH][KW][16], src/ops/channel_blocking.h), so the VEC channels of one
// vector (VEC divides 16, channel groups start at multiples of VEC) are contiguous. Input and
// output are NCHW, or NCHW16c where IN_BLOCKED / OUT_BLOCKED is 1 (the conv2d_oc_vec_nchwc
// sketch): a blocked output stores each vector with one store, its lanes past CO zero, so
// that channel-blocked layers (depthwise_conv2d_nchwc) chain without conversions. Channel
// counts, rows and columns that no block divides are computed in the padded lanes and
// positions and not stored; inputs outside the image read as zero.
//
// NDRange: (column blocks rounded up to WG, row blocks, N * channel groups); work-groups WG x 1 x 1.
// With PAD_INPUT (channel-blocked input, PAD > 0), the pre-pass pad_input_nchwc first copies the
// image into a zeroed frame, so that no block needs bounds checks: on small images every block
// touches the border, and the checks cost more than the copy.
// floatv, VLOAD, VSTORE come from vector_types.cl, UNROLL_IF from conv_common.cl, and
// PIXEL_BLOCK_ORIGIN, WINDOW_INSIDE from pixel_blocks.cl.

#define FB ((CO + VEC * OCV - 1) / (VEC * OCV))  // channel groups per image
#define COP ((CO + 15) / 16 * 16)          // output channels in the packed weights
#define TAPS (CI * KH * KW)
#define CEIL_DIV(a, b) ((a) > 0 ? ((a) + (b) - 1) / (b) : -(-(a) / (b)))  // any sign of a, b > 0
#ifndef IN_BLOCKED
#define IN_BLOCKED 0
#endif
#ifndef OUT_BLOCKED
#define OUT_BLOCKED 0
#endif
#define IPS (IN_BLOCKED ? 16 : 1)                         // floats from one input pixel to the next
#define CIP (IN_BLOCKED ? (CI + 15) / 16 * 16 : CI)       // channels per input image, padding included
// Input channel c's first element in its image (IN_H x IN_W: pixel_blocks.cl).
#define IN_PLANE(c) (IN_BLOCKED ? ((c) / 16 * 16 * IN_H * IN_W + (c) % 16) : (c) * IN_H * IN_W)

// With one block per row (x0 = 0) and the kernel width unrolled, whether output column t reads
// only padding at kernel column kx: known when compiling, so that the load and its
// multiply-adds are dropped (on a 7x7 output with stride 2 and padding 1, one in 21).
#define COLUMN_IN_PADDING(t, kx) \
  (XB == 1 && UNROLL_KW && ((t) * STRIDE - PAD + (kx) * DIL < 0 || (t) * STRIDE - PAD + (kx) * DIL >= W))

// One kernel tap (c, ky, kx): weight vectors, then each input value against all of them.
// GUARD = 0 where the work-item's whole input window lies inside the image; otherwise the
// index is clamped into the image (a load that is always safe, so no branch) and the value
// replaced by zero outside it.
#define TAP(GUARD)                                                                              \
  {                                                                                             \
    floatv wv[OCV];                                                                             \
    _Pragma("unroll") for (int j = 0; j < OCV; ++j) wv[j] = VLOAD(wp[j] + tap * 16);            \
    _Pragma("unroll") for (int r = 0; r < TOH; ++r) {                                           \
      const int iy = (y0 + r) * STRIDE - IN_PAD + ky * DIL;                                     \
      const bool row_in = iy >= 0 && iy < H;                                                    \
      __global const float* row = plane + (GUARD ? clamp(iy, 0, H - 1) : iy) * IN_W * IPS;     \
      _Pragma("unroll") for (int t = 0; t < TOW; ++t) {                                         \
        if (COLUMN_IN_PADDING(t, kx)) continue;                                                 \
        const int ix = ix0 + t * STRIDE + kx * DIL;                                             \
        float v = row[(GUARD ? clamp(ix, 0, W - 1) : ix) * IPS];                                \
        if (GUARD) v = (row_in && ix >= 0 && ix < W) ? v : 0.0f;                                \
        _Pragma("unroll") for (int j = 0; j < OCV; ++j) acc[j][r][t] = fma((floatv)(v), wv[j], acc[j][r][t]); \
      }                                                                                         \
    }                                                                                           \
  }

// Kernel rows KY0 <= ky < KY1 only (the others read nothing but padding for this block).
#define REDUCE(GUARD, KY0, KY1)                              \
  for (int c = 0; c < CI; ++c) {                             \
    __global const float* plane = image + IN_PLANE(c);       \
    for (int ky = KY0; ky < KY1; ++ky) {                     \
      UNROLL_IF(UNROLL_KW)                                   \
      for (int kx = 0; kx < KW; ++kx) {                      \
        const int tap = (c * KH + ky) * KW + kx;             \
        TAP(GUARD)                                           \
      }                                                      \
    }                                                        \
  }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void conv2d_oc_vec(__global const float* restrict data, __global const float* restrict weight,
                   __global float* restrict out) {
  PIXEL_BLOCK_ORIGIN;
  const int n = get_global_id(2) / FB, f0 = get_global_id(2) % FB * (VEC * OCV);
  __global const float* image = data + (size_t)n * CIP * IN_H * IN_W;

  // Vector j's weights; a vector wholly past the packed channels reads vector 0's (not stored).
  __global const float* wp[OCV];
#pragma unroll
  for (int j = 0; j < OCV; ++j) {
    const int f = f0 + j * VEC < COP ? f0 + j * VEC : f0;
    wp[j] = weight + (size_t)(f / 16) * TAPS * 16 + f % 16;
  }

  floatv acc[OCV][TOH][TOW];
#pragma unroll
  for (int j = 0; j < OCV; ++j)
#pragma unroll
    for (int r = 0; r < TOH; ++r)
#pragma unroll
      for (int t = 0; t < TOW; ++t) acc[j][r][t] = (floatv)(0.0f);

  // The kernel rows whose input rows meet the image for some row of the block: a block at the
  // top or bottom edge skips the rest, which would only add zeros (on a 7x7 output with stride
  // 2 and padding 1, one kernel row in 21; a library skips them too).
  const int ky_lo = max(0, CEIL_DIV(PAD - (y0 + TOH - 1) * STRIDE, DIL));
  const int ky_hi = min(KH, CEIL_DIV(H + PAD - y0 * STRIDE, DIL));
#if PAD_INPUT
  REDUCE(0, ky_lo, ky_hi)
#else
  if (WINDOW_INSIDE) {
    REDUCE(0, 0, KH)
  } else {
    REDUCE(1, ky_lo, ky_hi)
  }
#endif

#if OUT_BLOCKED
#pragma unroll
  for (int j = 0; j < OCV; ++j) {
    const int f = f0 + j * VEC;
    if (f >= COP) break;
#if CO % 16
    if (f + VEC > CO) {  // the last block's padding lanes: zero, as the layout holds them
      float lanes[VEC];
#pragma unroll
      for (int r = 0; r < TOH; ++r)
#pragma unroll
        for (int t = 0; t < TOW; ++t) {
          VSTORE(acc[j][r][t], lanes);
          for (int l = CO - f > 0 ? CO - f : 0; l < VEC; ++l) lanes[l] = 0.0f;
          acc[j][r][t] = VLOAD(lanes);
        }
    }
#endif
    __global float* plane = out + ((size_t)n * COP + f / 16 * 16) * OH * OW + f % 16;
#pragma unroll
    for (int r = 0; r < TOH; ++r)
#pragma unroll
      for (int t = 0; t < TOW; ++t)
        if (y0 + r < OH && x0 + t < OW) VSTORE(acc[j][r][t], plane + ((y0 + r) * OW + x0 + t) * 16);
  }
#if CO % 16
  // The last channel group also zeroes the padding lanes past its vectors.
  if (f0 + VEC * OCV >= CO && f0 + VEC * OCV < COP) {
    __global float* plane = out + ((size_t)n * COP + (COP - 16)) * OH * OW;
    for (int r = 0; r < TOH; ++r)
      for (int t = 0; t < TOW; ++t)
        if (y0 + r < OH && x0 + t < OW)
          for (int l = (f0 + VEC * OCV) % 16; l < 16; ++l) plane[((y0 + r) * OW + x0 + t) * 16 + l] = 0.0f;
  }
#endif
#else
#pragma unroll
  for (int j = 0; j < OCV; ++j) {
    float lanes[TOH][TOW][VEC];
#pragma unroll
    for (int r = 0; r < TOH; ++r)
#pragma unroll
      for (int t = 0; t < TOW; ++t) VSTORE(acc[j][r][t], lanes[r][t]);
#pragma unroll
    for (int l = 0; l < VEC; ++l) {
      const int f = f0 + j * VEC + l;
      if (f >= CO) break;
      __global float* plane = out + ((size_t)n * CO + f) * OH * OW;
#pragma unroll
      for (int r = 0; r < TOH; ++r)
#pragma unroll
        for (int t = 0; t < TOW; ++t)
          if (y0 + r < OH && x0 + t < OW) plane[(y0 + r) * OW + x0 + t] = lanes[r][t][l];
    }
  }
#endif
}

#if PAD_INPUT
// The pre-pass: each work-item writes one row of the PH x PW frame of one channel block of one
// image, the image's pixels at (PAD, PAD) and zeros around them. NDRange: (PH, N * channel blocks).
__kernel void pad_input_nchwc(__global const float* restrict data, __global float* restrict framed) {
  const int y = get_global_id(0), b = get_global_id(1), sy = y - PAD;
  __global float* dst = framed + ((size_t)b * PH + y) * PW * 16;
  __global const float* src = data + ((size_t)b * H + sy) * W * 16;
  for (int x = 0; x < PW; ++x) {
    const int sx = x - PAD;
    const bool inside = sy >= 0 && sy < H && sx >= 0 && sx < W;
    vstore16(inside ? vload16(sx, src) : (float16)(0.0f), x, dst);
  }
}
#endif
