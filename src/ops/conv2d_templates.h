#pragma once
#include "ops/kernel_template.h"

namespace tt {

// The sketches of conv2d (NCHW), all computing the same workload:
// direct convolution with AutoTVM conv2d_nchw knobs, input and weight tiles in local memory
// (kernels/conv2d_direct.cl with LOCAL=1);
const KernelTemplate& Conv2dDirectLocalTemplate();
// the same knobs and kernel reading straight from global memory (LOCAL=0);
const KernelTemplate& Conv2dDirectGlobalTemplate();
// the global-memory kernel computing each work-item's output columns in float vectors, with
// a vector-width knob (vec) beyond AutoTVM's set (kernels/conv2d_direct_vec.cl);
const KernelTemplate& Conv2dDirectVecTemplate();
// direct convolution vectorized over output channels, with weights pre-packed as OIHW16o
// (TVM's x86 conv2d_NCHWc knobs; kernels/conv2d_oc_vec.cl, src/ops/conv2d_oc_vec_template.cpp);
const KernelTemplate& Conv2dOcVecTemplate();
// the same on NCHW16c activations (an image of up to 4 channels read as NCHW), so that it
// chains with depthwise_conv2d_nchwc without layout conversions;
const KernelTemplate& Conv2dOcVecNchwcTemplate();
// Winograd F(2x2,3x3), fused into one kernel, for 3x3 stride-1 undilated convolutions;
const KernelTemplate& Conv2dWinogradTemplate();
// Winograd F(2x2,3x3) and F(4x4,3x3) on NCHW16c activations with weights transformed once
// (layouts kWinogradF2 / kWinogradF4): an input-transform pre-pass, then the products over
// channels folded into the output transform (kernels/conv2d_winograd_nchwc.cl,
// src/ops/conv2d_winograd_nchwc_template.cpp);
const KernelTemplate& Conv2dWinogradF2NchwcTemplate();
const KernelTemplate& Conv2dWinogradF4NchwcTemplate();
// Whether `t` is one of the Winograd sketches (fewer multiplications, a larger rounding error:
// docs/templates.md, "Numerics"), which --no-winograd leaves out.
bool IsWinogradSketch(const KernelTemplate& t);
// ApplicableTemplates(workload), less the Winograd sketches when `no_winograd`.
std::vector<const KernelTemplate*> ApplicableTemplates(const Workload& workload, bool no_winograd);
// implicit GEMM: weights x im2col(data) with gemm_tiled's register tiling and the im2col
// indexing in the kernel (kernels/conv2d_implicit_gemm.cl, src/ops/conv2d_implicit_gemm_template.cpp).
const KernelTemplate& Conv2dImplicitGemmTemplate();

}  // namespace tt
