#include "ops/conv2d_templates.h"

#include <Eigen/Core>
#include <string>

#include "ops/build_options.h"
#include "ops/conv2d_template_base.h"
#include "ops/conv_shape.h"

namespace tt {

std::vector<BufferSpec> Conv2dTemplate::Buffers(const Workload& w) const {
  const ConvShape s = ConvShape::Of(w);
  return {{"data", s.input_elements(), false},
          {"weight", ElementCount({s.co, s.ci, s.kh, s.kw}), false},
          {"out", s.output_elements(), true}};
}

double Conv2dTemplate::Flops(const Workload& w) const {
  const ConvShape s = ConvShape::Of(w);
  return 2.0 * static_cast<double>(s.output_elements()) * static_cast<double>(ElementCount({s.ci, s.kh, s.kw}));
}

void Conv2dTemplate::Reference(const Workload& w, const std::vector<const float*>& in, float* out) const {
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const ConvShape s = ConvShape::Of(w);
  const int64_t window = s.ci * s.kh * s.kw, pixels = s.oh * s.ow;
  Eigen::Map<const RowMajor> weights(in[1], s.co, window);
  RowMajor columns(window, pixels);
  for (int64_t n = 0; n < s.n; ++n) {
    const float* image = in[0] + n * s.ci * s.h * s.w;
    for (int64_t c = 0; c < s.ci; ++c)
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          float* row = columns.data() + ((c * s.kh + ky) * s.kw + kx) * pixels;
          for (int64_t y = 0; y < s.oh; ++y)
            for (int64_t x = 0; x < s.ow; ++x) {
              const int64_t iy = y * s.stride - s.pad + ky * s.dilation, ix = x * s.stride - s.pad + kx * s.dilation;
              row[y * s.ow + x] =
                  (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w) ? image[(c * s.h + iy) * s.w + ix] : 0.0f;
            }
        }
    Eigen::Map<RowMajor>(out + n * s.co * pixels, s.co, pixels).noalias() = weights * columns;
  }
}

void SetKnobValue(const ConfigSpace& space, Config& c, std::string_view name, int64_t value) {
  if (!space.HasKnob(name)) return;
  const size_t i = space.KnobIndex(name);
  if (const auto v = space.knob(i).Find({value})) c[i] = *v;
}

std::string Conv2dTemplate::ShapeOptions(const ConvShape& s) {
  return "-cl-mad-enable" + Define("N", s.n) + Define("CI", s.ci) + Define("H", s.h) + Define("W", s.w) +
         Define("CO", s.co) + Define("KH", s.kh) + Define("KW", s.kw) + Define("STRIDE", s.stride) +
         Define("PAD", s.pad) + Define("DIL", s.dilation) + Define("OH", s.oh) + Define("OW", s.ow);
}

namespace {

// Knob values of a direct-convolution config, with AutoTVM conv2d_nchw's meaning.
struct DirectTiles {
  KnobValue f, y, x, rc, ry, rx;
  int64_t unroll_max_step, unroll_explicit;
  int64_t vec;  // 1 where the sketch has no vector knob

  DirectTiles(const ConfigSpace& space, const Config& c)
      : f(space.Value(c, "tile_f")),
        y(space.Value(c, "tile_y")),
        x(space.Value(c, "tile_x")),
        rc(space.Value(c, "tile_rc")),
        ry(space.Value(c, "tile_ry")),
        rx(space.Value(c, "tile_rx")),
        unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        unroll_explicit(space.Scalar(c, "unroll_explicit")),
        vec(space.HasKnob("vec") ? space.Scalar(c, "vec") : 1) {}

  int64_t work_group() const { return f[2] * y[2] * x[2]; }
  int64_t accumulators() const { return f[1] * f[3] * y[1] * y[3] * x[1] * x[3]; }
  int64_t local_bytes(const ConvShape& s) const {
    const int64_t rows = ConvInputExtent(y[1] * y[2] * y[3], ry[1], s.stride, s.dilation);
    const int64_t cols = ConvInputExtent(x[1] * x[2] * x[3], rx[1], s.stride, s.dilation);
    return 4 * (rc[1] * rows * cols + f[1] * f[2] * f[3] * rc[1] * ry[1] * rx[1]);
  }
  // Like TVM's auto_unroll_max_step, a loop is unrolled when the statements it would expand
  // to (its trip count, times the loops inside it, times the FMAs of one step) stay within it.
  bool Unrolled(int64_t trips) const { return trips * accumulators() <= unroll_max_step; }
};

// How a direct sketch reads its operands.
enum class DirectVariant {
  kLocal,   // input and weight tiles fetched into local memory
  kGlobal,  // everything read from global memory
  kVector,  // global memory, plus a vector width along each work-item's output columns
};

class Conv2dDirect final : public Conv2dTemplate {
 public:
  explicit Conv2dDirect(DirectVariant variant) : variant_(variant) {}
  bool stages_in_local_memory() const override { return variant_ == DirectVariant::kLocal; }
  std::string_view name() const override {
    switch (variant_) {
      case DirectVariant::kLocal:
        return "conv2d_direct_local";
      case DirectVariant::kGlobal:
        return "conv2d_direct_global";
      case DirectVariant::kVector:
        return "conv2d_direct_vec";
    }
    return {};
  }
  std::string_view description() const override {
    switch (variant_) {
      case DirectVariant::kLocal:
        return "direct, AutoTVM conv2d_nchw knobs, input and weight tiles fetched into local memory";
      case DirectVariant::kGlobal:
        return "direct, AutoTVM conv2d_nchw knobs, every operand read from global memory";
      case DirectVariant::kVector:
        return "direct, AutoTVM conv2d_nchw knobs plus vec: output columns computed in float vectors";
    }
    return {};
  }
  std::string_view kernel_name() const override { return variant_ == DirectVariant::kVector ? "conv2d_vec" : "conv2d"; }
  std::string_view source() const override {
    static const std::string scalar = JoinKernelSources({"vector_types.cl", "conv_common.cl", "conv2d_direct.cl"});
    static const std::string vector = JoinKernelSources({"vector_types.cl", "conv_common.cl", "conv2d_direct_vec.cl"});
    return variant_ == DirectVariant::kVector ? vector : scalar;
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Split("tile_f", s.co, 4));
    space.AddKnob(Knob::Split("tile_y", s.oh, 4));
    space.AddKnob(Knob::Split("tile_x", s.ow, 4));
    space.AddKnob(Knob::Split("tile_rc", s.ci, 2));
    space.AddKnob(Knob::Split("tile_ry", s.kh, 2));
    space.AddKnob(Knob::Split("tile_rx", s.kw, 2));
    space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 512, 1500}));
    space.AddKnob(Knob::Categorical("unroll_explicit", {0, 1}));
    if (variant_ == DirectVariant::kVector) space.AddKnob(Knob::Discrete("vec", {1, 2, 4, 8, 16}));
    const bool local = variant_ == DirectVariant::kLocal;
    space.AddConstraint([s, limits, local](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
      const DirectTiles t(sp, c);
      if (t.x[3] % t.vec != 0) return "vec " + std::to_string(t.vec) + " does not divide tile_x[3]";
      return CheckConvLimits(t.work_group(), local ? t.local_bytes(s) : 0, t.accumulators(), limits);
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const DirectTiles t(space, c);
    return ShapeOptions(ConvShape::Of(w)) + DefineSplit("TF", t.f) + DefineSplit("TY", t.y) + DefineSplit("TX", t.x) +
           DefineSplit("RC", t.rc) + DefineSplit("RY", t.ry) + DefineSplit("RX", t.rx) +
           Define("LOCAL", variant_ == DirectVariant::kLocal) + Define("VEC", t.vec) +
           Define("UNROLL_RX", t.Unrolled(t.rx[1])) + Define("UNROLL_RY", t.Unrolled(t.ry[1] * t.rx[1])) +
           Define("UNROLL_RC", t.Unrolled(t.rc[1] * t.ry[1] * t.rx[1])) + Define("UNROLL_FETCH", t.unroll_explicit);
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const DirectTiles t(space, c);
    return DirectConvGeometry(w.Dim("n"), t.f, t.y, t.x);
  }

 private:
  DirectVariant variant_;
};

// Knob values of a Winograd config: tile_y splits CO, tile_x the 2x2 output tiles.
struct WinogradTiles {
  KnobValue y, x, rc;
  int64_t unroll_max_step, unroll_explicit;

  WinogradTiles(const ConfigSpace& space, const Config& c)
      : y(space.Value(c, "tile_y")),
        x(space.Value(c, "tile_x")),
        rc(space.Value(c, "tile_rc")),
        unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        unroll_explicit(space.Scalar(c, "unroll_explicit")) {}

  int64_t work_group() const { return y[2] * x[2]; }
  int64_t accumulators() const { return 16 * y[1] * y[3] * x[1] * x[3]; }
  int64_t local_bytes() const { return 4 * 16 * rc[1] * (y[1] * y[2] * y[3] + x[1] * x[2] * x[3]); }
};

int64_t WinogradTileCount(const ConvShape& s) { return s.n * ((s.oh + 1) / 2) * ((s.ow + 1) / 2); }

class Conv2dWinograd final : public Conv2dTemplate {
 public:
  std::string_view name() const override { return "conv2d_winograd"; }
  std::string_view description() const override {
    return "Winograd F(2x2,3x3) in one kernel; 3x3 kernels, stride 1, no dilation";
  }
  std::string_view kernel_name() const override { return "conv2d_winograd"; }
  // Exact on the check's integer inputs (halves only): docs/templates.md, "Numerics".
  double tolerance() const override { return 1e-4; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"conv_common.cl", "conv2d_winograd.cl"});
    return text;
  }

  std::optional<std::string> WhyNotApplicable(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    if (s.kh != 3 || s.kw != 3 || s.stride != 1 || s.dilation != 1)
      return std::string("Winograd F(2x2,3x3) needs a 3x3 kernel with stride 1 and dilation 1");
    return std::nullopt;
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Split("tile_y", s.co, 4));
    space.AddKnob(Knob::Split("tile_x", WinogradTileCount(s), 4));
    space.AddKnob(Knob::Split("tile_rc", s.ci, 2));
    space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 128, 1500}));
    space.AddKnob(Knob::Categorical("unroll_explicit", {0, 1}));
    space.AddConstraint([limits](const ConfigSpace& sp, const Config& c) {
      const WinogradTiles t(sp, c);
      return CheckConvLimits(t.work_group(), t.local_bytes(), t.accumulators(), limits);
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const WinogradTiles t(space, c);
    return ShapeOptions(ConvShape::Of(w)) + DefineSplit("TY", t.y) + DefineSplit("TX", t.x) + DefineSplit("RC", t.rc) +
           Define("UNROLL_RC", t.rc[1] * t.accumulators() <= t.unroll_max_step) +
           Define("UNROLL_FETCH", t.unroll_explicit);
  }

  LaunchGeometry Geometry(const Workload&, const ConfigSpace& space, const Config& c) const override {
    const WinogradTiles t(space, c);
    return SplitGeometry2d(t.x, t.y);
  }
};

}  // namespace

const KernelTemplate& Conv2dDirectLocalTemplate() {
  static const Conv2dDirect instance(DirectVariant::kLocal);
  return instance;
}

const KernelTemplate& Conv2dDirectGlobalTemplate() {
  static const Conv2dDirect instance(DirectVariant::kGlobal);
  return instance;
}

const KernelTemplate& Conv2dDirectVecTemplate() {
  static const Conv2dDirect instance(DirectVariant::kVector);
  return instance;
}

const KernelTemplate& Conv2dWinogradTemplate() {
  static const Conv2dWinograd instance;
  return instance;
}

bool IsWinogradSketch(const KernelTemplate& t) {
  return &t == &Conv2dWinogradTemplate() || &t == &Conv2dWinogradF2NchwcTemplate() ||
         &t == &Conv2dWinogradF4NchwcTemplate();
}

std::vector<const KernelTemplate*> ApplicableTemplates(const Workload& workload, bool no_winograd) {
  auto kernels = ApplicableTemplates(workload);
  if (no_winograd) std::erase_if(kernels, [](const KernelTemplate* t) { return IsWinogradSketch(*t); });
  return kernels;
}

}  // namespace tt
