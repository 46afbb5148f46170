#pragma once
// How a config of a kernel template is built, bound and launched, as data: the build options,
// the kernels in launch order (a pre-pass such as gemm_tiled's pack_b first), each with its
// NDRange and its arguments as buffer indices, and the scratch buffer a pre-pass writes. The
// runtime (src/runtime) launches plans on callers' buffers; the layouts say what each buffer
// holds.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt {

// The memory layout of one buffer of a kernel. Logical dimensions are always those of the
// plain layout: NCHW for activations, OIHW for convolution weights, rows x columns (batch
// first) for matrices.
enum class TensorLayout {
  kRowMajor,  // a matrix (or a batch of them), rows x columns
  kNCHW,
  kNCHW16c,  // [N][ceil(C/16)][H][W][16]: 16 channels innermost, the lanes past C zero
  kOIHW,
  kOIHW16o,  // [ceil(O/16)][I][H][W][16]: 16 output channels innermost, the lanes past O zero
  // 3x3 weights transformed for Winograd F(2x2,3x3) / F(4x4,3x3) (ops/winograd.h):
  // [ceil(O/16)][alpha^2][I][16], alpha = 4 / 6, the lanes past O zero.
  kWinogradF2,
  kWinogradF4,
  // A K x N matrix (dense-layer weights) in panels of 16 columns: [ceil(N/16)][K][16], the
  // lanes past N zero (ops/channel_blocking.h).
  kKN16n,
};

std::string_view LayoutName(TensorLayout layout);                // "NCHW16c"
bool ParseLayoutName(std::string_view name, TensorLayout& out);  // false when unknown
TensorLayout PlainLayout(TensorLayout layout);                   // NCHW16c -> NCHW, OIHW16o -> OIHW
// m of the Winograd F(m x m, 3x3) weight layouts; 0 for the others.
int WinogradTileOf(TensorLayout layout);
// The co, ci, kh, kw of OIHW weight dimensions (the rest of the shape unset).
ConvShape WeightShape(const std::vector<int64_t>& oihw);
// Floats a buffer of this layout and these logical dimensions holds (blocked padding included).
size_t LayoutElements(TensorLayout layout, const std::vector<int64_t>& dims);

struct BufferLayout {
  TensorLayout layout = TensorLayout::kRowMajor;
  std::vector<int64_t> dims;  // logical, in the plain layout's order
};

// The layout of each of the template's Buffers(), in the same order.
std::vector<BufferLayout> BufferLayouts(const KernelTemplate& kernel, const Workload& workload);

struct KernelStep {
  std::string kernel;  // the __kernel function
  LaunchGeometry geometry;
  std::vector<int> args;  // per kernel argument: a Buffers() index, or kScratchArg
};
constexpr int kScratchArg = -1;

struct LaunchPlan {
  std::string build_options;
  std::vector<KernelStep> steps;  // in launch order, on one in-order stream
  size_t scratch_elements = 0;    // floats of the scratch buffer; 0: none
};

// The plan of one config (valid in `space`): the pre-pass, when the config has one, reads its
// input buffer into the scratch buffer, and the main kernel then gets the scratch buffer in
// that input's place (as the worker measures it).
LaunchPlan PlanLaunch(const KernelTemplate& kernel, const Workload& workload, const ConfigSpace& space,
                      const Config& config);

}  // namespace tt
