#pragma once
// Host-side layout conversions between the plain layouts a framework holds (NCHW activations,
// OIHW weights, row-major matrices) and the layouts a chosen sketch reads (Argument::layout):
// weights are packed once when a model is loaded; activations are converted per call unless
// the neighbouring layers keep the blocked layout (Runtime::PrepareConversion converts on the
// device).
#include <vector>

#include "tensortune/runtime.h"

namespace tensortune {

// Floats a buffer of `layout` with these logical dimensions holds.
TENSORTUNE_API size_t LayoutElements(Layout layout, const std::vector<int64_t>& dims);

// `plain` (PlainLayout(layout), LayoutElements of it) in `layout`; the padding lanes of a
// channel-blocked layout are zero. Throws Error (kInvalidArgument) for a size mismatch.
TENSORTUNE_API std::vector<float> ToLayout(const std::vector<float>& plain, Layout layout,
                                           const std::vector<int64_t>& dims);
// The inverse: `data` in `layout` back to PlainLayout(layout), padding lanes dropped.
TENSORTUNE_API std::vector<float> FromLayout(const std::vector<float>& data, Layout layout,
                                             const std::vector<int64_t>& dims);

// For one argument of an operator: PackWeights(op.arguments()[1], oihw) gives what a
// conv2d_oc_vec kernel reads (OIHW16o), ConvertActivations(op.arguments()[0], nchw) the
// NCHW16c input of depthwise_conv2d_nchwc; for a plain-layout argument, a copy.
TENSORTUNE_API std::vector<float> PackWeights(const Argument& argument, const std::vector<float>& plain);
TENSORTUNE_API std::vector<float> ConvertActivations(const Argument& argument, const std::vector<float>& plain);
// An output (or any argument) back to its plain layout.
TENSORTUNE_API std::vector<float> ToPlain(const Argument& argument, const std::vector<float>& data);

}  // namespace tensortune
