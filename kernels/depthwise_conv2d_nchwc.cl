// Depthwise 2-D convolution (channel multiplier 1) on channel-blocked activations, vectorized
// over channels as oneDNN's and TVM's x86 depthwise kernels are: input [N][CB][H][W][16],
// weights [CB][KH][KW][16], output [N][CB][OH][OW][16] with CB = ceil(C/16)
// (src/ops/channel_blocking.h). Each work-item computes VEC of a block's 16 channels (one float
// vector) for a TOH x TOW block of output pixels; every input and weight load is one vector
// load. The padding channels of the last block are computed like the others (the layout
// holds them); rows and columns that no block divides are computed and not stored, and
// inputs outside the image read as zero.
//
// NDRange: (column blocks rounded up to WG, row blocks, N * CB * 16 / VEC); work-groups WG x 1 x 1.
// floatv, VLOAD, VSTORE come from vector_types.cl; PIXEL_BLOCK_ORIGIN, WINDOW_INSIDE from
// pixel_blocks.cl.

#define CB ((C + 15) / 16)
#define GROUPS (CB * 16 / VEC)  // channel vectors per image

// GUARD = 0 where the work-item's whole input window lies inside the image; otherwise the
// index is clamped into the image (a load that is always safe) and the value zeroed outside.
#define WINDOW(GUARD)                                                                          \
  _Pragma("unroll") for (int ky = 0; ky < KH; ++ky)                                            \
  _Pragma("unroll") for (int kx = 0; kx < KW; ++kx) {                                          \
    const floatv wv = VLOAD(wp + (ky * KW + kx) * 16);                                         \
    _Pragma("unroll") for (int r = 0; r < TOH; ++r) {                                          \
      const int iy = (y0 + r) * STRIDE - PAD + ky * DIL;                                       \
      const bool row_in = iy >= 0 && iy < H;                                                   \
      _Pragma("unroll") for (int t = 0; t < TOW; ++t) {                                        \
        const int ix = ix0 + t * STRIDE + kx * DIL;                                            \
        const int at = GUARD ? clamp(iy, 0, H - 1) * W + clamp(ix, 0, W - 1) : iy * W + ix;    \
        floatv v = VLOAD(image + at * 16);                                                     \
        if (GUARD) v = (row_in && ix >= 0 && ix < W) ? v : (floatv)(0.0f);                     \
        acc[r][t] = fma(v, wv, acc[r][t]);                                                     \
      }                                                                                        \
    }                                                                                          \
  }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void depthwise_conv2d_nchwc(__global const float* restrict data, __global const float* restrict weight,
                            __global float* restrict out) {
  PIXEL_BLOCK_ORIGIN;
  const int n = get_global_id(2) / GROUPS, g = get_global_id(2) % GROUPS;
  const int cb = g * VEC / 16, lane = g * VEC % 16;
  __global const float* image = data + (size_t)(n * CB + cb) * H * W * 16 + lane;
  __global const float* wp = weight + cb * KH * KW * 16 + lane;

  floatv acc[TOH][TOW];
#pragma unroll
  for (int r = 0; r < TOH; ++r)
#pragma unroll
    for (int t = 0; t < TOW; ++t) acc[r][t] = (floatv)(0.0f);

  if (WINDOW_INSIDE) {
    WINDOW(0)
  } else {
    WINDOW(1)
  }

  __global float* plane = out + (size_t)(n * CB + cb) * OH * OW * 16 + lane;
#pragma unroll
  for (int r = 0; r < TOH; ++r)
#pragma unroll
    for (int t = 0; t < TOW; ++t)
      if (y0 + r < OH && x0 + t < OW) VSTORE(acc[r][t], plane + ((y0 + r) * OW + x0 + t) * 16);
}
