#pragma once
// Convolution weights blocked by output channel, as inference frameworks pack them once per
// model so that a kernel reads a vector of output channels with one load: OIHW16o, i.e.
// [ceil(CO/16)][CI][KH][KW][16], where lane o of block b holds output channel 16b + o and the
// lanes past CO are zero.
#include <cstdint>
#include <vector>

#include "ops/conv_shape.h"

namespace tt {

constexpr int64_t kWeightBlock = 16;

int64_t PackedWeightElements(const ConvShape& s);
// OIHW (co x ci x kh x kw) -> OIHW16o.
std::vector<float> PackWeightsByOutputChannel(const ConvShape& s, const float* oihw);
// OIHW16o -> OIHW; the padding lanes are dropped.
std::vector<float> UnpackWeightsByOutputChannel(const ConvShape& s, const float* packed);

}  // namespace tt
