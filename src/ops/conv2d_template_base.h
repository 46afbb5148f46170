#pragma once
// What every conv2d sketch shares: the operator, buffers (NCHW data, OIHW weights, NCHW
// output), FLOPs (always those of the direct convolution, so that sketches compare by time),
// the reference, and the shape's build options.
#include <string>
#include <string_view>
#include <utility>

#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt {

class Conv2dTemplate : public KernelTemplate {
 public:
  std::string_view op() const override { return "conv2d"; }
  std::vector<BufferSpec> Buffers(const Workload& w) const override;
  double Flops(const Workload& w) const override;
  // An im2col product through Eigen, with OIHW weights in inputs[1].
  void Reference(const Workload& w, const std::vector<const float*>& inputs, float* output) const override;

 protected:
  // -D N, CI, H, W, CO, KH, KW, STRIDE, PAD, DIL, OH, OW (and -cl-mad-enable).
  static std::string ShapeOptions(const ConvShape& s);
};

// Sets knob `name` of `c` to `value` where the space has the knob and the value; else leaves `c`
// as it is. For the FitToTheShape rules, which move a config to a named value.
void SetKnobValue(const ConfigSpace& space, Config& c, std::string_view name, int64_t value);

// Moves knob `knob` of `c` to its largest value past index `above` (-1: any) for which `fits`
// holds and the config stays valid; false, `c` as it was, when there is none. The CPU rules'
// one search: the widest group of output channels, the largest chunk of fused channels.
template <typename Fits>
bool TakeLargestValue(const ConfigSpace& space, Config& c, size_t knob, int64_t above, Fits fits) {
  Config tried = c;
  for (auto i = static_cast<int64_t>(space.knob(knob).size()) - 1; i > above; --i) {
    tried[knob] = static_cast<uint32_t>(i);
    if (!fits(space.knob(knob).value(static_cast<size_t>(i))[0]) || !space.IsValid(tried)) continue;
    c = std::move(tried);
    return true;
  }
  return false;
}

// The SIMD registers that the CPU rules of FitToTheShape keep a work-item's live vectors within
// (AVX-512's 32): past them the compiler spills a value to the stack and reloads it every step.
inline constexpr int64_t kVectorRegisters = 32;

// Past this share of outputs computed beyond those needed (a block of pixels or of Winograd
// tiles that does not divide the image: 2x2 pixel blocks on a 7x7 output compute 64 pixels for
// 49), the CPU rules of FitToTheShape give a config's block way to one that fits the image.
inline constexpr double kMostComputedShare = 1.25;

// Whether computing `computed` outputs for `needed` stays within kMostComputedShare.
inline bool WithinComputedShare(int64_t computed, int64_t needed) {
  return static_cast<double>(computed) <= kMostComputedShare * static_cast<double>(needed);
}

}  // namespace tt
