#include "ops/depthwise_conv2d_template.h"

#include <string>

#include "ops/build_options.h"
#include "ops/conv_shape.h"

namespace tt {
namespace {

// Knob values of a config, with AutoTVM depthwise_conv2d_nchw's meaning: tile_f splits the
// channels, tile_y the output rows, tile_x the output columns, each in 4 (work-groups,
// virtual threads, work-items, contiguous elements per work-item).
struct DepthwiseTiles {
  KnobValue f, y, x;
  int64_t unroll_max_step, unroll_explicit;
  int64_t vec;  // 1 for the AutoTVM-compatible sketch

  DepthwiseTiles(const ConfigSpace& space, const Config& c)
      : f(space.Value(c, "tile_f")),
        y(space.Value(c, "tile_y")),
        x(space.Value(c, "tile_x")),
        unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        unroll_explicit(space.Scalar(c, "unroll_explicit")),
        vec(space.HasKnob("vec") ? space.Scalar(c, "vec") : 1) {}

  int64_t work_group() const { return f[2] * y[2] * x[2]; }
  int64_t accumulators() const { return f[1] * f[3] * y[1] * y[3] * x[1] * x[3]; }
  // The input window of the work-group's channels, and their weights.
  int64_t local_bytes(const ConvShape& s) const {
    const int64_t rows = ConvInputExtent(y[1] * y[2] * y[3], s.kh, s.stride, s.dilation);
    const int64_t cols = ConvInputExtent(x[1] * x[2] * x[3], s.kw, s.stride, s.dilation);
    return 4 * f[1] * f[2] * f[3] * (rows * cols + s.kh * s.kw);
  }
  // As for conv2d: a loop is unrolled when trips x accumulators stay within the knob.
  bool Unrolled(int64_t trips) const { return trips * accumulators() <= unroll_max_step; }
};

class DepthwiseConv2d final : public KernelTemplate {
 public:
  explicit DepthwiseConv2d(bool vectorized) : vectorized_(vectorized) {}
  bool stages_in_local_memory() const override { return true; }  // both variants: kernels/depthwise_conv2d.cl
  std::string_view name() const override { return vectorized_ ? "depthwise_conv2d_vec" : "depthwise_conv2d_direct"; }
  std::string_view op() const override { return "depthwise_conv2d"; }
  std::string_view description() const override {
    return vectorized_ ? "direct, AutoTVM depthwise_conv2d_nchw knobs plus vec: output columns in float vectors"
                       : "direct, AutoTVM depthwise_conv2d_nchw knobs, input window fetched into local memory";
  }
  std::string_view kernel_name() const override { return "depthwise_conv2d"; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"vector_types.cl", "conv_common.cl", "depthwise_conv2d.cl"});
    return text;
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Split("tile_f", s.co, 4));
    space.AddKnob(Knob::Split("tile_y", s.oh, 4));
    space.AddKnob(Knob::Split("tile_x", s.ow, 4));
    space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 256, 1500}));
    space.AddKnob(Knob::Categorical("unroll_explicit", {0, 1}));
    if (vectorized_) space.AddKnob(Knob::Discrete("vec", {1, 2, 4, 8, 16}));
    space.AddConstraint([s, limits](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
      const DepthwiseTiles t(sp, c);
      if (t.x[3] % t.vec != 0) return "vec " + std::to_string(t.vec) + " does not divide tile_x[3]";
      return CheckConvLimits(t.work_group(), t.local_bytes(s), t.accumulators(), limits);
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    const DepthwiseTiles t(space, c);
    return "-cl-mad-enable" + Define("C", s.co) + Define("H", s.h) + Define("W", s.w) + Define("KH", s.kh) +
           Define("KW", s.kw) + Define("STRIDE", s.stride) + Define("PAD", s.pad) + Define("DIL", s.dilation) +
           Define("OH", s.oh) + Define("OW", s.ow) + DefineSplit("TF", t.f) + DefineSplit("TY", t.y) +
           DefineSplit("TX", t.x) + Define("UNROLL_KX", t.Unrolled(s.kw)) +
           Define("UNROLL_KY", t.Unrolled(s.kh * s.kw)) + Define("UNROLL_FETCH", t.unroll_explicit) +
           Define("VEC", t.vec);
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const DepthwiseTiles t(space, c);
    return DirectConvGeometry(w.Dim("n"), t.f, t.y, t.x);
  }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    return {{"data", s.input_elements(), false},
            {"weight", ElementCount({s.co, s.kh, s.kw}), false},
            {"out", s.output_elements(), true}};
  }

  double Flops(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    return 2.0 * static_cast<double>(s.output_elements()) * static_cast<double>(ElementCount({s.kh, s.kw}));
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const ConvShape s = ConvShape::Of(w);
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t c = 0; c < s.co; ++c) {
        const float* image = in[0] + (n * s.ci + c) * s.h * s.w;
        const float* kernel = in[1] + c * s.kh * s.kw;
        float* plane = out + (n * s.co + c) * s.oh * s.ow;
        for (int64_t y = 0; y < s.oh; ++y)
          for (int64_t x = 0; x < s.ow; ++x) {
            float sum = 0.0f;
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                const int64_t iy = y * s.stride - s.pad + ky * s.dilation, ix = x * s.stride - s.pad + kx * s.dilation;
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w) sum += image[iy * s.w + ix] * kernel[ky * s.kw + kx];
              }
            plane[y * s.ow + x] = sum;
          }
      }
  }

 private:
  bool vectorized_;
};

}  // namespace

const KernelTemplate& DepthwiseConv2dTemplate() {
  static const DepthwiseConv2d instance(false);
  return instance;
}

const KernelTemplate& DepthwiseConv2dVecTemplate() {
  static const DepthwiseConv2d instance(true);
  return instance;
}

}  // namespace tt
