#pragma once
#include "ops/kernel_template.h"

namespace tt {

// Depthwise conv2d (NCHW, channel multiplier 1), direct, with AutoTVM depthwise_conv2d_nchw
// knobs; each work-group stages its input window in local memory (kernels/depthwise_conv2d.cl).
const KernelTemplate& DepthwiseConv2dTemplate();
// The same kernel with one knob beyond AutoTVM's set, vec: each work-item computes its
// contiguous output columns in float vectors.
const KernelTemplate& DepthwiseConv2dVecTemplate();
// Vectorized over channels on channel-blocked (NCHW16c) activations and weights, with guarded
// row and column tails (src/ops/depthwise_conv2d_nchwc_template.cpp).
const KernelTemplate& DepthwiseConv2dNchwcTemplate();

}  // namespace tt
