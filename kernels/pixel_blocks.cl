// Shared by the kernels whose work-items each compute a TOH x TOW block of output pixels
// (conv2d_oc_vec.cl, depthwise_conv2d_nchwc.cl; src/ops/pixel_blocks.h): the NDRange is
// (column blocks rounded up to WG, row blocks, ...), with work-groups WG x 1 x 1.

#define XB ((OW + TOW - 1) / TOW)  // column blocks per output row

// The input the blocks read: the image, or with PAD_INPUT its pre-pass copy in a zeroed frame
// of PH x PW pixels (the image at PAD, PAD; wide enough for every block's window), which needs
// no bounds checks.
#ifndef PAD_INPUT
#define PAD_INPUT 0
#endif
#if PAD_INPUT
#define IN_H PH
#define IN_W PW
#define IN_PAD 0
#else
#define IN_H H
#define IN_W W
#define IN_PAD PAD
#endif

// The block's first output column x0 and row y0, and its first input column ix0; the
// work-items that only round the NDRange up to whole work-groups return. With one block per
// row, x0 is the constant 0, so that the compiler folds each column's bounds check (with the
// kernel-width loop unrolled) and the guarded path checks rows only.
#define PIXEL_BLOCK_ORIGIN                                      \
  const int xb = get_global_id(0);                              \
  if (xb >= XB) return;                                         \
  const int x0 = XB == 1 ? 0 : xb * TOW, y0 = get_global_id(1) * TOH; \
  const int ix0 = x0 * STRIDE - IN_PAD

// Whether the block's whole input window lies inside the image (no bounds checks needed).
#define WINDOW_INSIDE                                                                               \
  (PAD_INPUT || (ix0 >= 0 && ix0 + (TOW - 1) * STRIDE + (KW - 1) * DIL < W && y0 * STRIDE - PAD >= 0 && \
                 (y0 + TOH - 1) * STRIDE - PAD + (KH - 1) * DIL < H))
