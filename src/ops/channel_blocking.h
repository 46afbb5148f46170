#pragma once
// Channel-blocked layouts, as inference frameworks use them so that a kernel reads a vector of
// channels with one load. [N][C][P] (P: the elements per channel) becomes [N][ceil(C/16)][P][16]:
// lane l of block b holds channel 16b + l, and the lanes past C are zero. Convolution weights
// OIHW blocked by output channel (N = 1, C = CO, P = CI*KH*KW) are OIHW16o; activations NCHW
// (P = H*W) are NCHW16c.
#include <cstdint>
#include <vector>

#include "ops/conv_shape.h"

namespace tt {

constexpr int64_t kChannelBlock = 16;

int64_t ChannelBlocks(int64_t channels);
int64_t BlockedElements(int64_t n, int64_t channels, int64_t per_channel);
std::vector<float> BlockChannels(const float* plain, int64_t n, int64_t channels, int64_t per_channel);
// The inverse; the padding lanes are dropped.
std::vector<float> UnblockChannels(const float* blocked, int64_t n, int64_t channels, int64_t per_channel);

// conv2d weights, OIHW <-> OIHW16o.
int64_t PackedWeightElements(const ConvShape& s);
std::vector<float> PackWeightsByOutputChannel(const ConvShape& s, const float* oihw);
std::vector<float> UnpackWeightsByOutputChannel(const ConvShape& s, const float* packed);

// A K x N row-major matrix (dense-layer weights) in panels of 16 columns, [ceil(N/16)][K][16]
// (KN16n): the columns are the channels, each with its K elements, the lanes past N zero.
int64_t ColumnPanelElements(int64_t k, int64_t n);
std::vector<float> PackColumnPanels(const float* kn, int64_t k, int64_t n);
std::vector<float> UnpackColumnPanels(const float* panels, int64_t k, int64_t n);

}  // namespace tt
