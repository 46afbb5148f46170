// conv2d_oc_vec: direct convolution vectorized over output channels (kernels/conv2d_oc_vec.cl).
// The knobs follow TVM's x86 conv2d_NCHWc schedule where they mean the same: tile_ow (output
// columns per work-item, a register block) and unroll_kw; its tile_oc becomes vec (the float
// vector width over output channels, up to the device's native width) times tile_oc (vectors
// per work-item). TVM's tile_ic blocks the input's channels in an NCHWc activation layout;
// here the activations stay NCHW, so it has no counterpart. Blocks need not divide the shape:
// the kernel guards the tails, so odd channel counts and widths keep every vector width.
//
// conv2d_oc_vec_nchwc is the same kernel on channel-blocked activations (oneDNN's nChw16c):
// it writes NCHW16c and reads NCHW16c, except an image of at most 4 channels (a network's
// stem), which it reads as NCHW as oneDNN's first convolution does. A network whose
// depthwise layers run blocked then needs no layout conversions between them.
#include <algorithm>

#include "ops/build_options.h"
#include "ops/channel_blocking.h"
#include "ops/conv2d_template_base.h"
#include "ops/conv2d_templates.h"
#include "ops/pixel_blocks.h"

namespace tt {
namespace {

// Accumulator vectors per work-item: what a SIMD register file of 32 (kVectorRegisters,
// AVX-512's) holds with room for up to three weight vectors and the broadcast input. Blocks
// that need more stay in the space for the tuner to measure; starts and transfers are kept
// within the file (FitRegisterFile).
constexpr int64_t kMaxAccumulatorVectors = 28;

struct OcVecTiles {
  int64_t vec, oc, unroll_kw;
  bool pad_input;
  PixelBlock pixels;

  OcVecTiles(const ConfigSpace& space, const Config& c)
      : vec(space.Scalar(c, "vec")),
        oc(space.Scalar(c, "tile_oc")),
        unroll_kw(space.Scalar(c, "unroll_kw")),
        pad_input(space.HasKnob("pad_input") && space.Scalar(c, "pad_input") == 1),
        pixels(space, c) {}

  int64_t channel_groups(const ConvShape& s) const { return (s.co + vec * oc - 1) / (vec * oc); }
  // The pre-pass's frame: the padded image, widened until every block's window fits.
  int64_t framed_h(const ConvShape& s) const {
    return std::max(s.h + 2 * s.pad, ConvInputExtent(pixels.row_blocks(s) * pixels.oh, s.kh, s.stride, s.dilation));
  }
  int64_t framed_w(const ConvShape& s) const {
    return std::max(s.w + 2 * s.pad, ConvInputExtent(pixels.column_blocks(s) * pixels.ow, s.kw, s.stride, s.dilation));
  }
};

std::optional<std::string> CheckOcVec(const ConvShape& s, const DeviceLimits& limits, const OcVecTiles& t) {
  if ((t.oc - 1) * t.vec >= s.co) return "tile_oc x vec leaves a whole vector past the output channels";
  if (t.oc * t.pixels.oh * t.pixels.ow > kMaxAccumulatorVectors)
    return "more than " + std::to_string(kMaxAccumulatorVectors) + " accumulator vectors per work-item";
  return t.pixels.WhyInvalid(s, limits);
}

// The channels up to which an image stays NCHW in the blocked sketch.
constexpr int64_t kMaxPlainImageChannels = 4;

bool ReadsBlocked(const ConvShape& s) { return s.ci > kMaxPlainImageChannels; }

// Whether the input may be copied into a zeroed frame first (pad_input): channel-blocked
// input of a padded convolution.
bool CanPadInput(const ConvShape& s, bool blocked) { return blocked && ReadsBlocked(s) && s.pad > 0; }

int64_t ComputedPixels(const ConvShape& s, const PixelBlock& b) {
  return b.row_blocks(s) * b.oh * b.column_blocks(s) * b.ow;
}

// A pixel block that computes more than kMostComputedShare times the output's pixels gives way
// to the block of at least as many pixels (as much reuse of each weight vector) that computes
// the fewest, the most pixels among equals: one row of 7 on a 7x7 output. Pinned, one thread,
// against the start's 2x2 in groups of four: ResNet-18's 1x1 stride-2 projection to 7x7
// 0.062-0.065 ms against 0.083-0.092, MobileNet-v1's 1024-channel 7x7 layer 0.54-0.59 against
// 0.70-0.73, ResNet-18's 3x3 stride-2 layer to 7x7 0.65-0.66 against 0.77-0.78 (notebook,
// 2026-11-28).
std::string FitPixelBlock(const ConvShape& s, const ConfigSpace& space, Config& c) {
  const PixelBlock given(space, c);
  const int64_t output = s.oh * s.ow;
  if (WithinComputedShare(ComputedPixels(s, given), output)) return {};
  const size_t rows = space.KnobIndex("tile_oh"), columns = space.KnobIndex("tile_ow");
  const size_t group = space.KnobIndex("work_group");
  // The block with the config's work-group size, else the largest smaller one that is valid
  // (fewer blocks along the columns leave a large group idle).
  const auto valid = [&](Config& fitted) {
    for (uint32_t g = c[group] + 1; g-- > 0;) {
      fitted[group] = g;
      if (space.IsValid(fitted)) return true;
    }
    return false;
  };
  std::optional<Config> best;
  for (uint32_t i = 0; i < space.knob(rows).size(); ++i)
    for (uint32_t j = 0; j < space.knob(columns).size(); ++j) {
      Config fitted = c;
      fitted[rows] = i;
      fitted[columns] = j;
      const PixelBlock b(space, fitted);
      if (b.oh * b.ow < given.oh * given.ow || !valid(fitted)) continue;
      if (best) {
        const PixelBlock kept(space, *best);
        const int64_t computed = ComputedPixels(s, b), kept_computed = ComputedPixels(s, kept);
        if (computed > kept_computed || (computed == kept_computed && b.oh * b.ow <= kept.oh * kept.ow)) continue;
      }
      best = fitted;
    }
  if (!best || ComputedPixels(s, PixelBlock(space, *best)) >= ComputedPixels(s, given)) return {};
  c = *best;
  const PixelBlock b(space, c);
  return std::to_string(b.oh) + "x" + std::to_string(b.ow) + " pixels per work-item, fitted to the output";
}

// The vectors of output channels that the fits below give up to: the largest power of two for
// which `fits` holds (a config's tile_oc with `vectors` in its place) and the config stays valid.
// Three vectors come from the class start alone, where four would leave a vector past the
// channels (48 channels, the stem of examples/resnet18_pruned.json: three by 2x2 0.70-0.75 ms,
// the best of one or two vectors 0.79-0.80); on a power of two of channels three compute a
// partial group (528 of 512), and by a row of 7 ran 2-3% slower than two (pinned, one thread;
// notebook, 2026-11-29, night).
template <typename Fits>
bool HalveVectorsUntilTheyFit(const ConfigSpace& space, Config& c, Fits fits) {
  OcVecTiles t(space, c);
  return TakeLargestValue(space, c, space.KnobIndex("tile_oc"), -1, [&](int64_t vectors) {
    t.oc = vectors;
    return IsPowerOfTwo(vectors) && fits(t);
  });
}

// Blocked input framed by the pre-pass, a kernel wider than one column: an output row of at
// most kRowBlockPixels is taken as one block of one row, the kx loop unrolled, with as many
// vectors of output channels as keep kRowBlockPixels accumulators. The kernel then drops the
// taps that read padding when compiling (conv2d_oc_vec.cl). Pinned, one thread, against the
// start's four vectors by 2x2: ResNet-18's layer3.0.conv1 (28 -> 14, stride 2) 0.970-0.980 ms
// against 1.02-1.03, a 14x14 layer of 256 channels at stride 1 1.83 against 2.01-2.03; a row of
// 28 (one vector) ran 1.10 against 1.02, and without the pre-pass (conv2d_oc_vec) a row of 14
// 1.44 against 1.07 (notebook, 2026-11-29, evening).
constexpr int64_t kRowBlockPixels = 14;

std::string FitRowBlock(const ConvShape& s, bool blocked, const ConfigSpace& space, Config& c) {
  if (!CanPadInput(s, blocked) || s.kw == 1 || s.ow > kRowBlockPixels) return {};
  const auto row = space.knob(space.KnobIndex("tile_ow")).Find(KnobValue{s.ow});
  if (!row) return {};
  Config fitted = c;
  fitted[space.KnobIndex("tile_ow")] = *row;
  SetKnobValue(space, fitted, "tile_oh", 1);
  SetKnobValue(space, fitted, "work_group", 1);
  SetKnobValue(space, fitted, "unroll_kw", 1);
  SetKnobValue(space, fitted, "pad_input", 1);
  if (!HalveVectorsUntilTheyFit(space, fitted, [&](const OcVecTiles& t) { return t.oc * s.ow <= kRowBlockPixels; }))
    return {};
  if (fitted == c || !space.IsValid(fitted)) return {};
  c = std::move(fitted);
  return std::to_string(space.Scalar(c, "tile_oc")) + " vectors by a row of " + std::to_string(s.ow) +
         " pixels, the taps that read padding dropped";
}

// Whether the compiler holds every input value of an unrolled kx loop in a register: over an
// unguarded window (the pre-pass's frame, or no padding) with more than one vector of output
// channels it loads each input column of the row's taps once, up front (the spilled vectors of
// POCL's code count as that predicts); with one vector the FMA reads the value from memory. A
// kernel one column wide has no taps to share columns (a 1x1 layer, 256 -> 512 at 14x14, two
// vectors by 2x7: 0.198 ms, the fastest of four blocks pinned).
bool HoldsInputs(const ConvShape& s, const OcVecTiles& t) {
  return t.unroll_kw == 1 && s.kw > 1 && t.oc > 1 && (t.pad_input || s.pad == 0);
}

// The vector registers the channel loop keeps live: the accumulators, the weight vectors of the
// taps it unrolls and the input values (held: rows x ((ow - 1) x stride + kw) of them).
int64_t LiveVectors(const ConvShape& s, const OcVecTiles& t) {
  const int64_t inputs = HoldsInputs(s, t) ? t.pixels.oh * ConvInputExtent(t.pixels.ow, s.kw, s.stride, s.dilation) : 1;
  return t.oc * t.pixels.oh * t.pixels.ow + t.oc * (t.unroll_kw == 1 ? s.kw : 1) + inputs;
}

// Held inputs pass the register file by up to this many at no measured cost (not all of them are
// live at once): pinned on a Zen 5 core, ResNet-18's 3x3 layers at stride 1 and 2, counts of
// 32-37 spilled at most 10 vectors and ran as fast as the rolled loop; 38-43 spilled 18-54
// and ran 1.15-1.55x slower (four vectors by 2x2 at stride 2, 56 -> 28: 0.70 ms against 0.48
// rolled; notebook, 2026-11-29, late evening).
constexpr int64_t kHeldInputsPastTheFile = 5;

bool FitsTheRegisterFile(const ConvShape& s, const OcVecTiles& t) {
  return LiveVectors(s, t) <= kVectorRegisters + (HoldsInputs(s, t) ? kHeldInputsPastTheFile : 0);
}

// Past the register file an accumulator is stored and reloaded every tap: four vectors of
// output channels by a row of 7 (33 live) spilled one, and ran 0.62-0.65 ms on ResNet-18's
// 3x3 stride-2 layer to 7x7 where two vectors (17 live) ran 0.55; unrolled over kx (41 live),
// 0.88-0.91 (pinned, one thread; notebook, 2026-11-28). So the kx loop is rolled first (each
// weight vector keeps its reuse), with the pre-pass where there is one (rolled taps that check
// the image's bounds ran 0.98 there, at two threads 2x slower), then vectors of output channels
// are given up until the live vectors fit.
std::string FitRegisterFile(const ConvShape& s, const ConfigSpace& space, Config& c) {
  if (FitsTheRegisterFile(s, OcVecTiles(space, c))) return {};
  Config fitted = c;
  if (s.kw > 1) {
    SetKnobValue(space, fitted, "unroll_kw", 0);
    SetKnobValue(space, fitted, "pad_input", 1);
  }
  const int64_t given = OcVecTiles(space, c).oc;
  if (!FitsTheRegisterFile(s, OcVecTiles(space, fitted)) &&
      !HalveVectorsUntilTheyFit(space, fitted,
                                [&](const OcVecTiles& t) { return t.oc < given && FitsTheRegisterFile(s, t); }))
    return {};
  if (!space.IsValid(fitted)) return {};
  c = std::move(fitted);
  return std::to_string(space.Scalar(c, "tile_oc")) + " vectors of output channels, within the register file";
}

// One block per row of a padded output (a start, a transfer, a config FitRegisterFile rolled):
// the kx loop unrolled where it fits the register file, so that the taps that read padding are
// dropped. ResNet-18's layer4.0.conv1, two vectors by a row of 7: 0.93-0.97 ms unrolled against
// 0.96-0.98 rolled at one thread, 0.51 against 0.54 at two; without the pre-pass (conv2d_oc_vec)
// 1.10-1.12 against 1.75 (notebook, 2026-11-29, evening).
std::string UnrollOneBlockPerRow(const ConvShape& s, const ConfigSpace& space, Config& c) {
  const OcVecTiles t(space, c);
  if (s.pad == 0 || s.kw == 1 || t.unroll_kw == 1 || t.pixels.column_blocks(s) != 1) return {};
  Config unrolled = c;
  SetKnobValue(space, unrolled, "unroll_kw", 1);
  if (!FitsTheRegisterFile(s, OcVecTiles(space, unrolled)) || !space.IsValid(unrolled)) return {};
  c = std::move(unrolled);
  return "the kx loop unrolled, one block per row";
}

class Conv2dOcVec final : public Conv2dTemplate {
 public:
  explicit Conv2dOcVec(bool blocked) : blocked_(blocked) {}

  std::string_view name() const override { return blocked_ ? "conv2d_oc_vec_nchwc" : "conv2d_oc_vec"; }
  std::string_view description() const override {
    return blocked_ ? "direct, vectorized over output channels (vec x tile_oc) times tile_oh x tile_ow pixels, on "
                      "NCHW16c activations (an image of up to 4 channels read as NCHW) and OIHW16o weights"
                    : "direct, vectorized over output channels (vec x tile_oc) times tile_oh x tile_ow pixels, weights "
                      "pre-packed OIHW16o";
  }
  std::string_view kernel_name() const override { return "conv2d_oc_vec"; }
  bool vectorizes_channels() const override { return true; }
  std::string_view source() const override {
    static const std::string text =
        JoinKernelSources({"vector_types.cl", "conv_common.cl", "pixel_blocks.cl", "conv2d_oc_vec.cl"});
    return text;
  }

  // The weights are the packed ones, as a deployed model stores them after a one-off packing.
  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    auto buffers = Conv2dTemplate::Buffers(w);
    buffers[1].elements = static_cast<size_t>(PackedWeightElements(s));
    if (blocked_) {
      if (ReadsBlocked(s)) buffers[0].elements = static_cast<size_t>(BlockedElements(s.n, s.ci, s.h * s.w));
      buffers[2].elements = static_cast<size_t>(BlockedElements(s.n, s.co, s.oh * s.ow));
    }
    return buffers;
  }

  // OIHW16o weights; NCHW16c activations in the blocked sketch.
  std::vector<size_t> ChannelBlockedBuffers(const Workload& w) const override {
    if (!blocked_) return {1};
    if (ReadsBlocked(ConvShape::Of(w))) return {0, 1, 2};
    return {1, 2};
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const ConvShape s = ConvShape::Of(w);
    const std::vector<float> oihw = UnpackWeightsByOutputChannel(s, in[1]);
    if (!blocked_) return Conv2dTemplate::Reference(w, {in[0], oihw.data()}, out);
    const std::vector<float> plain_in = ReadsBlocked(s) ? UnblockChannels(in[0], s.n, s.ci, s.h * s.w)
                                                        : std::vector<float>(in[0], in[0] + s.input_elements());
    std::vector<float> plain_out(static_cast<size_t>(s.output_elements()));
    Conv2dTemplate::Reference(w, {plain_in.data(), oihw.data()}, plain_out.data());
    const std::vector<float> blocked = BlockChannels(plain_out.data(), s.n, s.co, s.oh * s.ow);
    std::copy(blocked.begin(), blocked.end(), out);
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 4)));
    space.AddKnob(Knob::Discrete("tile_oc", {1, 2, 3, 4}));
    AddPixelBlockKnobs(space, s);
    space.AddKnob(Knob::Categorical("unroll_kw", {0, 1}));
    if (CanPadInput(s, blocked_)) space.AddKnob(Knob::Categorical("pad_input", {0, 1}));
    space.AddConstraint(
        [s, limits](const ConfigSpace& sp, const Config& c) { return CheckOcVec(s, limits, OcVecTiles(sp, c)); });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const OcVecTiles t(space, c);
    const ConvShape s = ConvShape::Of(w);
    return ShapeOptions(s) + Define("VEC", t.vec) + Define("OCV", t.oc) + Define("UNROLL_KW", t.unroll_kw) +
           t.pixels.BuildOptions() +
           (blocked_ ? Define("IN_BLOCKED", ReadsBlocked(s) ? 1 : 0) + Define("OUT_BLOCKED", 1) : std::string()) +
           (t.pad_input ? Define("PAD_INPUT", 1) + Define("PH", t.framed_h(s)) + Define("PW", t.framed_w(s))
                        : std::string());
  }

  // With pad_input, the image copied into its zeroed frame (pad_input_nchwc), a row per work-item.
  std::optional<PrePass> PrePassOf(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const OcVecTiles t(space, c);
    if (!t.pad_input) return std::nullopt;
    const ConvShape s = ConvShape::Of(w);
    PrePass pre;
    pre.kernel_name = "pad_input_nchwc";
    pre.input = 0;
    pre.scratch_elements = static_cast<size_t>(BlockedElements(s.n, s.ci, t.framed_h(s) * t.framed_w(s)));
    pre.geometry.dims = 2;
    pre.geometry.global = {static_cast<size_t>(t.framed_h(s)), static_cast<size_t>(s.n * ChannelBlocks(s.ci)), 1};
    pre.geometry.local = {1, 1, 1};
    return pre;
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    const OcVecTiles t(space, c);
    return t.pixels.Geometry(s, s.n * t.channel_groups(s));
  }

  // On a CPU: a narrow padded output in rows (FitRowBlock), else the pixel block fitted to a
  // small output (FitPixelBlock); then the live vectors fitted to the register file
  // (FitRegisterFile), and one block per row unrolled where it fits (UnrollOneBlockPerRow).
  std::string FitToTheShape(const Workload& w, const ConfigSpace& space, const DeviceInfo& device,
                            Config& c) const override {
    if (device.type != "cpu") return {};
    const ConvShape s = ConvShape::Of(w);
    std::string pixels = FitRowBlock(s, blocked_, space, c);
    if (pixels.empty()) pixels = FitPixelBlock(s, space, c);
    std::string why;
    for (const std::string& step : {pixels, FitRegisterFile(s, space, c), UnrollOneBlockPerRow(s, space, c)})
      if (!step.empty()) why += (why.empty() ? "" : ", ") + step;
    return why;
  }

 private:
  bool blocked_;
};

}  // namespace

const KernelTemplate& Conv2dOcVecTemplate() {
  static const Conv2dOcVec instance(false);
  return instance;
}

const KernelTemplate& Conv2dOcVecNchwcTemplate() {
  static const Conv2dOcVec instance(true);
  return instance;
}

}  // namespace tt
