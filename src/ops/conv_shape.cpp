#include "ops/conv_shape.h"

#include "ops/build_options.h"

namespace tt {

int64_t ConvOutputExtent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  if (in + 2 * pad < span) return 0;
  return (in + 2 * pad - span) / stride + 1;
}

ConvShape ConvShape::Of(const Workload& w) {
  ConvShape s;
  const bool depthwise = w.op == "depthwise_conv2d";
  s.n = w.Dim("n");
  s.ci = w.Dim(depthwise ? "c" : "ci");
  s.co = depthwise ? s.ci : w.Dim("co");
  s.h = w.Dim("h");
  s.w = w.Dim("w");
  s.kh = w.Dim("kh");
  s.kw = w.Dim("kw");
  s.stride = w.Dim("stride");
  s.pad = w.Dim("pad");
  s.dilation = w.Dim("dilation");
  s.oh = ConvOutputExtent(s.h, s.kh, s.stride, s.pad, s.dilation);
  s.ow = ConvOutputExtent(s.w, s.kw, s.stride, s.pad, s.dilation);
  return s;
}

LaunchGeometry DirectConvGeometry(int64_t batch, const KnobValue& f, const KnobValue& y, const KnobValue& x) {
  LaunchGeometry g;
  g.dims = 3;
  g.local = {static_cast<size_t>(x[2]), static_cast<size_t>(y[2]), static_cast<size_t>(f[2])};
  g.global = {static_cast<size_t>(x[0] * x[2]), static_cast<size_t>(y[0] * y[2]),
              static_cast<size_t>(batch * f[0] * f[2])};
  return g;
}

std::optional<std::string> CheckConvLimits(int64_t work_group, int64_t local_bytes, int64_t accumulators,
                                           const DeviceLimits& limits) {
  if (auto why = CheckDeviceLimits(work_group, local_bytes, limits)) return why;
  if (accumulators > 256) return "more than 256 accumulators per work-item";
  return std::nullopt;
}

}  // namespace tt
