// conv2d_oc_vec: direct convolution vectorized over output channels (kernels/conv2d_oc_vec.cl).
// The knobs follow TVM's x86 conv2d_NCHWc schedule where they mean the same: tile_ow (output
// columns per work-item, a register block) and unroll_kw; its tile_oc becomes vec (the float
// vector width over output channels, up to the device's native width) times tile_oc (vectors
// per work-item). TVM's tile_ic blocks the input's channels in an NCHWc activation layout;
// here the activations stay NCHW, so it has no counterpart. Blocks need not divide the shape:
// the kernel guards the tails, so odd channel counts and widths keep every vector width.
#include <algorithm>

#include "ops/build_options.h"
#include "ops/conv2d_template_base.h"
#include "ops/conv2d_templates.h"
#include "ops/conv_weight_packing.h"

namespace tt {
namespace {

// Accumulator vectors per work-item: what a SIMD register file of 32 holds with room for the
// weight vectors and the broadcast input.
constexpr int64_t kMaxAccumulatorVectors = 28;

std::vector<int64_t> UpTo(std::vector<int64_t> values, int64_t limit) {
  std::erase_if(values, [limit](int64_t v) { return v > std::max<int64_t>(limit, 1); });
  return values;
}

struct OcVecTiles {
  int64_t vec, oc, oh, ow, unroll_kw, work_group;

  OcVecTiles(const ConfigSpace& space, const Config& c)
      : vec(space.Scalar(c, "vec")), oc(space.Scalar(c, "tile_oc")), oh(space.Scalar(c, "tile_oh")),
        ow(space.Scalar(c, "tile_ow")), unroll_kw(space.Scalar(c, "unroll_kw")),
        work_group(space.Scalar(c, "work_group")) {}

  int64_t column_blocks(const ConvShape& s) const { return (s.ow + ow - 1) / ow; }
  int64_t channel_groups(const ConvShape& s) const { return (s.co + vec * oc - 1) / (vec * oc); }
};

std::optional<std::string> CheckOcVec(const ConvShape& s, const DeviceLimits& limits, const OcVecTiles& t) {
  if ((t.oc - 1) * t.vec >= s.co) return "tile_oc x vec leaves a whole vector past the output channels";
  if (t.oc * t.oh * t.ow > kMaxAccumulatorVectors)
    return "more than " + std::to_string(kMaxAccumulatorVectors) + " accumulator vectors per work-item";
  if (t.work_group > 1 && t.work_group / 2 >= t.column_blocks(s)) return "work_group exceeds the column blocks";
  return CheckDeviceLimits(t.work_group, 0, limits);
}

class Conv2dOcVec final : public Conv2dTemplate {
 public:
  std::string_view name() const override { return "conv2d_oc_vec"; }
  std::string_view description() const override {
    return "direct, vectorized over output channels (vec x tile_oc) times tile_oh x tile_ow pixels, weights "
           "pre-packed OIHW16o";
  }
  std::string_view kernel_name() const override { return "conv2d_oc_vec"; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"vector_types.cl", "conv_common.cl", "conv2d_oc_vec.cl"});
    return text;
  }

  // The weights are the packed ones, as a deployed model stores them after a one-off packing.
  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    auto buffers = Conv2dTemplate::Buffers(w);
    buffers[1].elements = static_cast<size_t>(PackedWeightElements(ConvShape::Of(w)));
    return buffers;
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const std::vector<float> oihw = UnpackWeightsByOutputChannel(ConvShape::Of(w), in[1]);
    Conv2dTemplate::Reference(w, {in[0], oihw.data()}, out);
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 4)));
    space.AddKnob(Knob::Discrete("tile_oc", {1, 2, 4}));
    space.AddKnob(Knob::Discrete("tile_oh", UpTo({1, 2, 4}, s.oh)));
    space.AddKnob(Knob::Discrete("tile_ow", UpTo({1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 28}, s.ow)));
    space.AddKnob(Knob::Categorical("unroll_kw", {0, 1}));
    space.AddKnob(Knob::Discrete("work_group", {1, 2, 4, 8, 16}));
    space.AddConstraint([s, limits](const ConfigSpace& sp, const Config& c) {
      return CheckOcVec(s, limits, OcVecTiles(sp, c));
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const OcVecTiles t(space, c);
    return ShapeOptions(ConvShape::Of(w)) + Define("VEC", t.vec) + Define("OCV", t.oc) + Define("TOH", t.oh) +
           Define("TOW", t.ow) + Define("UNROLL_KW", t.unroll_kw) + Define("WG", t.work_group);
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    const OcVecTiles t(space, c);
    const int64_t columns = (t.column_blocks(s) + t.work_group - 1) / t.work_group * t.work_group;
    LaunchGeometry g;
    g.dims = 3;
    g.local = {static_cast<size_t>(t.work_group), 1, 1};
    g.global = {static_cast<size_t>(columns), static_cast<size_t>((s.oh + t.oh - 1) / t.oh),
                static_cast<size_t>(s.n * t.channel_groups(s))};
    return g;
  }
};

}  // namespace

const KernelTemplate& Conv2dOcVecTemplate() {
  static const Conv2dOcVec instance;
  return instance;
}

}  // namespace tt
