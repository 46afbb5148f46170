#pragma once
// The sizes of a 2-D convolution workload (conv2d or depthwise_conv2d, NCHW) and of its output.
#include <cstdint>
#include <optional>
#include <string>

#include "core/workload.h"
#include "ops/kernel_template.h"

namespace tt {

struct ConvShape {
  int64_t n = 1, ci = 1, h = 1, w = 1;  // input
  int64_t co = 1, kh = 1, kw = 1;       // weights: co x ci x kh x kw (depthwise: c x 1 x kh x kw)
  int64_t stride = 1, pad = 0, dilation = 1;
  int64_t oh = 1, ow = 1;  // output height and width

  // Reads conv2d (n, ci, h, w, co, kh, kw, ...) or depthwise_conv2d (n, c, h, w, kh, kw, ...).
  static ConvShape Of(const Workload& workload);
  size_t input_elements() const { return ElementCount({n, ci, h, w}); }
  size_t output_elements() const { return ElementCount({n, co, oh, ow}); }
};

// Output extent of one spatial axis; 0 or less when the dilated kernel exceeds the padded input.
int64_t ConvOutputExtent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation);
// The input extent that `outputs` consecutive outputs of one axis read.
inline int64_t ConvInputExtent(int64_t outputs, int64_t kernel, int64_t stride, int64_t dilation) {
  return (outputs - 1) * stride + (kernel - 1) * dilation + 1;
}

// Why a convolution kernel config does not fit: the device's work-group and local-memory
// limits, and at most 256 output floats accumulated per work-item (a register budget).
std::optional<std::string> CheckConvLimits(int64_t work_group, int64_t local_bytes, int64_t accumulators,
                                           const DeviceLimits& limits);

// The NDRange of the direct convolution kernels: tile_f (channels), tile_y (rows) and tile_x
// (columns) split in 4; work-items (x, y, channel), the batch fused with the channel groups.
LaunchGeometry DirectConvGeometry(int64_t batch, const KnobValue& f, const KnobValue& y, const KnobValue& x);

}  // namespace tt
