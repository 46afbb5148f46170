// conv2d_winograd_f2_nchwc and conv2d_winograd_f4_nchwc: Winograd F(2x2,3x3) and F(4x4,3x3)
// on NCHW16c activations (kernels/conv2d_winograd_nchwc.cl). The weights arrive transformed
// once, as a deployed model packs them (ops/winograd.h); the pre-pass transforms the input
// tiles into a scratch buffer, and the main kernel sums the products of each component over
// the channels and transforms its tiles back. The tile is a sketch of its own rather than a
// knob, because the transformed weights' layout depends on it and a workload's weights are
// packed once per sketch. With fused_ci there is no pre-pass: each work-item transforms its
// own tiles, a chunk of channels at a time, which saves the transformed input's round trip
// through memory where it outgrows the caches (a 224x224 image: 1.5-2.3x on VGG-16's conv1_2).
#include <algorithm>
#include <string>
#include <vector>

#include "ops/build_options.h"
#include "ops/channel_blocking.h"
#include "ops/conv2d_template_base.h"
#include "ops/conv2d_templates.h"
#include "ops/winograd.h"

namespace tt {
namespace {

// Accumulators and component sums per work-item stay within this many vectors (74 KB): up to
// F(4x4)'s sixteen tiles by two vectors of output channels (1168), which a 14x14 image takes whole.
constexpr int64_t kMaxTileVectors = 1184;
// On a CPU, an image of at most this many tiles goes to one work-item whole, and its sums in
// registers number this many (half of AVX-512's vector registers; TakeASmallImageWhole).
constexpr int64_t kWholeImageTiles = 16;
constexpr int64_t kRegisterSums = 16;
// A work-item's tiles transformed in the kernel (fused_ci), TT x A2 x fused_ci floats of
// private memory: within an L1 data cache of a CPU core.
constexpr int64_t kMaxFusedFloats = 12288;
// The channels up to which conv2d_oc_vec_nchwc reads an image as NCHW: no Winograd there.
constexpr int64_t kMinBlockedChannels = 5;
// Past this many bytes of transformed input, a pre-pass's round trip through memory costs more
// than a second transform in the kernel on a CPU: on VGG-16's 224x224 layer (51 MB) the
// kernel's own transform was 1.45x faster; on ResNet-18's 56x56 layer (3.2 MB) 0.8x
// (notebook, 2026-11-27).
constexpr size_t kPrePassBytesWorthFusing = size_t{16} << 20;
// With more than one compute unit (POCL's threads) one core may write what another reads, in
// the order POCL hands out work-groups: at two threads the kernel's own transform was 1.3x
// faster on ResNet-18's 56x56 layer (3.2 MB), as fast on its 28x28 one (1.6 MB) and 0.85x on
// its 14x14 one (0.8 MB); tuning at two threads chose it on the first two and not the last
// (three seeds; notebook, 2026-11-27, late night).
constexpr size_t kPrePassBytesWorthFusingOnSeveralCores = size_t{1} << 20;

// Past this many bytes of transformed input, a pre-pass stores it past the caches on a CPU
// (STREAM_V): a plain store reads each line before it fills it. One thread, pinned, alternating
// rounds (notebook, 2026-11-29, morning): F(4x4) on VGG-16's 224x224 layer (28.9 MB) 14.0-14.6 ms
// against 17.8-20.7, on its 112x112 layer of 128 channels (14.4 MB) 11.9-12.1 against 12.7-14.9;
// at 7.2 MB a tie at one thread and 3-8% slower at two, at 0.9-1.8 MB 5-15% slower.
constexpr size_t kPrePassBytesToStream = size_t{8} << 20;

struct WinogradNchwcTiles {
  int64_t vec, oc, tiles, work_group, unroll_ci, fused_ci;

  WinogradNchwcTiles(const ConfigSpace& space, const Config& c)
      : vec(space.Scalar(c, "vec")),
        oc(space.Scalar(c, "tile_oc")),
        tiles(space.Scalar(c, "tiles")),
        work_group(space.Scalar(c, "work_group")),
        unroll_ci(space.Scalar(c, "unroll_ci")),
        fused_ci(space.Scalar(c, "fused_ci")) {}
};

// The tiles whose sums stay in registers while the kernel reads a component's weights (TB): all
// of a work-item's up to 8, else an equal share of them, at most 8. Sixteen tiles in two blocks
// read each weight once per layer on a 7x7 image: 0.79-0.88 ms against 0.86-1.04 for eight
// (ResNet-18's 512-channel layer, one thread; notebook, 2026-11-27, 21h); beyond 8 tiles in registers
// their sums spill.
int64_t RegisterTiles(int64_t tiles) { return tiles <= 8 ? tiles : tiles / ((tiles + 7) / 8); }

// The components of a transformed tile: alpha^2, alpha = m + 2.
int64_t Components(int64_t m) { return (m + 2) * (m + 2); }

// With the input transformed in the kernel, each group of output channels transforms its tiles
// again: the widest group that the space allows and whose channel loop (its sums, a weight
// vector per output vector and the broadcast value) stays within the registers. VGG-16's
// 224x224 layer, F(4x4), four tiles: four vectors (one group) 11.5 ms against 13.6 for two,
// medians of three alternating rounds, one thread (notebook, 2026-11-28, noon).
void TransformEachTileOnce(const ConfigSpace& space, Config& c) {
  const size_t oc = space.KnobIndex("tile_oc");
  const int64_t sums_per_vector = RegisterTiles(space.Scalar(c, "tiles"));
  TakeLargestValue(space, c, oc, c[oc],
                   [&](int64_t vectors) { return vectors * (sums_per_vector + 1) + 1 <= kVectorRegisters; });
}

// With the input transformed in the kernel, the largest chunk of channels (fused_ci's last value)
// and one group of output channels count for more than tiles: the work-item keeps at most the
// tiles whose transform of a whole chunk fits kMaxFusedFloats. VGG-16's 224x224 layer, F(4x4),
// one thread, two alternating rounds: four tiles by four vectors, 64 channels at a time, 11.7-11.9
// ms; six by four, 32 at a time, 12.8-13.4; eight by two, 32 at a time, 14.9-16.0 (notebook,
// 2026-11-28, afternoon). Eight tiles came from a wider layer's config (ReadEachWeightForMoreTiles).
void TransformInWholeChunks(const ConfigSpace& space, int m, Config& c) {
  const Knob& chunks = space.knob(space.KnobIndex("fused_ci"));
  const int64_t whole = chunks.value(chunks.size() - 1)[0], tiles = space.Scalar(c, "tiles");
  TakeLargestValue(space, c, space.KnobIndex("tiles"), -1,
                   [&](int64_t value) { return value <= tiles && value * Components(m) * whole <= kMaxFusedFloats; });
}

int64_t TileCount(const ConvShape& s, int m) { return s.n * ((s.oh + m - 1) / m) * ((s.ow + m - 1) / m); }
// The work-items along the tiles (the NDRange's first dimension before the work-group rounding).
int64_t TileItems(int64_t tile_count, int64_t tiles) { return (tile_count + tiles - 1) / tiles; }
// The tiles computed, the last work-item repeating the last tile.
int64_t ComputedTiles(int64_t tile_count, int64_t tiles) { return TileItems(tile_count, tiles) * tiles; }

// A work-item reads every component's weights for its output channels once per TB tiles (the
// pre-pass's channel loop). Where that share outgrows a core's L2 (1 MB on AMD's Zen 4 and 5), each
// read comes from farther out; eight tiles by two vectors (sixteen sums in registers, the widest
// register tile with eight tiles) serve each read to twice the tiles of the start's four. One
// thread, pinned, two alternating rounds (notebook, 2026-11-28, afternoon): F(4x4) on VGG-16's
// 56x56 layer of 256 channels 7.1-8.7 ms against 8.3-9.1 for four tiles, on its 28x28 layer of
// 512 7.9-8.0 against 9.0-9.5; at two threads 4.6-5.2 against 5.2-5.6, 4.8-5.2 against 4.9-5.8.
// Seven tiles where they compute fewer than eight: the 28x28 layer's 49 tiles (eight compute
// 56) 9.9-10.3 ms against 11.1-11.2, the 56x56 layer's 196 (eight compute 200) 10.4-10.5
// against 10.8-11.1 (one thread, two rounds; notebook, 2026-11-29, evening).
constexpr size_t kWeightBytesWithinL2 = size_t{1} << 20;
constexpr int64_t kTilesPerWeightRead = 8;

size_t WeightBytesPerWorkItem(const ConvShape& s, int m, int64_t vec, int64_t vectors) {
  return static_cast<size_t>(Components(m) * s.ci * vec * vectors) * sizeof(float);
}

// The rule above: tiles raised to kTilesPerWeightRead (more stay) and vectors narrowed to two
// (fewer stay), where the space allows both; false, `c` as it was, where it changed nothing.
bool ReadEachWeightForMoreTiles(const ConvShape& s, int m, const ConfigSpace& space, Config& c) {
  const int64_t vec = space.Scalar(c, "vec");
  if (WeightBytesPerWorkItem(s, m, vec, space.Scalar(c, "tile_oc")) <= kWeightBytesWithinL2) return false;
  const int64_t count = TileCount(s, m), fewer = kTilesPerWeightRead - 1;
  const int64_t tiles =
      ComputedTiles(count, fewer) < ComputedTiles(count, kTilesPerWeightRead) ? fewer : kTilesPerWeightRead;
  Config fitted = c;
  SetKnobValue(space, fitted, "tiles", std::max(space.Scalar(c, "tiles"), tiles));
  SetKnobValue(space, fitted, "tile_oc", std::min<int64_t>(space.Scalar(c, "tile_oc"), 2));
  if (fitted == c || !space.IsValid(fitted)) return false;
  c = std::move(fitted);
  return true;
}

int64_t PaddedChannels(int64_t c) { return ChannelBlocks(c) * kChannelBlock; }
// The groups of `vectors` vectors of `vec` output channels (the NDRange's second dimension).
int64_t ChannelGroups(const ConvShape& s, int64_t vec, int64_t vectors) {
  return (PaddedChannels(s.co) + vec * vectors - 1) / (vec * vectors);
}
// The pre-pass's output: every tile's alpha^2 components of every (padded) input channel.
size_t PrePassElements(const ConvShape& s, int m) {
  return static_cast<size_t>(TileCount(s, m) * Components(m) * PaddedChannels(s.ci));
}

// A work-item's tiles that do not divide the image's are computed for nothing (the last
// work-item repeats the last tile): past kMostComputedShare, the tiles give way to the most of
// fewer that stay within it. A 14x14 image's sixteen F(4x4) tiles (one work-item takes them all)
// transferred to a 28x28 image's 49 compute 64; eight compute 56. ResNet-18's 28x28 layer, two
// vectors, one thread, three alternating rounds: 0.73 ms with eight tiles against 0.84 with
// sixteen (notebook, 2026-11-28, evening). False, `c` as it was, where the tiles fit or no fewer do.
bool FitTilesToTheImage(const ConvShape& s, int m, const ConfigSpace& space, Config& c) {
  const int64_t count = TileCount(s, m), given = space.Scalar(c, "tiles");
  if (WithinComputedShare(ComputedTiles(count, given), count)) return false;
  return TakeLargestValue(space, c, space.KnobIndex("tiles"), -1, [&](int64_t tiles) {
    return tiles < given && WithinComputedShare(ComputedTiles(count, tiles), count);
  });
}

class Conv2dWinogradNchwc final : public Conv2dTemplate {
 public:
  explicit Conv2dWinogradNchwc(int m)
      : m_(m),
        description_("Winograd F(" + std::to_string(m) + "x" + std::to_string(m) +
                     ",3x3) on NCHW16c activations: input transform (a pre-pass or in the kernel), then per "
                     "component a product over channels folded into the output transform; weights transformed "
                     "once") {}

  std::string_view name() const override { return m_ == 2 ? "conv2d_winograd_f2_nchwc" : "conv2d_winograd_f4_nchwc"; }
  std::string_view description() const override { return description_; }
  std::string_view kernel_name() const override { return "conv2d_winograd_nchwc"; }
  bool vectorizes_channels() const override { return true; }
  int winograd_tile() const override { return m_; }
  // docs/templates.md, "Numerics": the measured worst error on the check's data is far below.
  double tolerance() const override { return m_ == 2 ? 1e-4 : 1e-3; }
  std::string_view source() const override {
    static const std::string text =
        JoinKernelSources({"vector_types.cl", "conv_common.cl", "conv2d_winograd_nchwc.cl"});
    return text;
  }

  std::optional<std::string> WhyNotApplicable(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    if (s.kh != 3 || s.kw != 3 || s.stride != 1 || s.dilation != 1)
      return std::string("Winograd needs a 3x3 kernel with stride 1 and dilation 1");
    if (s.ci < kMinBlockedChannels)
      return std::string("an image of up to 4 channels stays NCHW (conv2d_oc_vec_nchwc reads it as such)");
    return std::nullopt;
  }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    auto buffers = Conv2dTemplate::Buffers(w);
    buffers[0].elements = static_cast<size_t>(BlockedElements(s.n, s.ci, s.h * s.w));
    buffers[1].elements = static_cast<size_t>(WinogradWeightElements(s, m_));
    buffers[2].elements = static_cast<size_t>(BlockedElements(s.n, s.co, s.oh * s.ow));
    return buffers;
  }
  std::vector<size_t> ChannelBlockedBuffers(const Workload&) const override { return {0, 2}; }

  void DeriveInput(const Workload& w, size_t index, std::vector<float>& data) const override {
    if (index != 1) return;
    data = TransformWeights(ConvShape::Of(w), m_, data.data());  // the first co*ci*9 as OIHW
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const ConvShape s = ConvShape::Of(w);
    const std::vector<float> oihw = UntransformWeights(s, m_, in[1]);
    const std::vector<float> plain_in = UnblockChannels(in[0], s.n, s.ci, s.h * s.w);
    std::vector<float> plain_out(s.output_elements());
    Conv2dTemplate::Reference(w, {plain_in.data(), oihw.data()}, plain_out.data());
    const std::vector<float> blocked = BlockChannels(plain_out.data(), s.n, s.co, s.oh * s.ow);
    std::copy(blocked.begin(), blocked.end(), out);
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    const int64_t m = m_, tile_count = TileCount(s, m_);
    ConfigSpace space;
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 4)));
    space.AddKnob(Knob::Discrete("tile_oc", {1, 2, 4}));
    space.AddKnob(Knob::Discrete("tiles", {1, 2, 3, 4, 6, 7, 8, 16}));
    space.AddKnob(Knob::Discrete("work_group", {1, 2, 4, 8, 16}));
    space.AddKnob(Knob::Discrete("unroll_ci", {1, 4, 8}));
    // 0: the input transform as a pre-pass, its 4x (F2) or 2.25x (F4) larger result through
    // memory; else in the kernel, this many channels at a time, once per group of output channels.
    space.AddKnob(Knob::Discrete("fused_ci", {0, 16, 32, 64}));
    space.AddConstraint(
        [s, m, tile_count, limits](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
          const WinogradNchwcTiles t(sp, c);
          if ((t.oc - 1) * t.vec >= PaddedChannels(s.co))
            return "tile_oc x vec leaves a whole vector past the output channels";
          if ((t.tiles - 1) >= tile_count) return "more tiles per work-item than the output has";
          if (t.oc * (RegisterTiles(t.tiles) + t.tiles * Components(m)) > kMaxTileVectors)
            return "more than " + std::to_string(kMaxTileVectors) + " vectors of sums per work-item";
          if (t.unroll_ci > s.ci) return "unroll_ci past the input channels";
          if (t.fused_ci > PaddedChannels(s.ci)) return "fused_ci past the input channels";
          if (t.tiles * Components(m) * t.fused_ci > kMaxFusedFloats)
            return "more than " + std::to_string(kMaxFusedFloats) + " floats of transformed input per work-item";
          const int64_t items = TileItems(tile_count, t.tiles);
          if (t.work_group > 1 && t.work_group > items) return "work-group larger than the work-items along the tiles";
          return CheckDeviceLimits(t.work_group, 0, limits);
        });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const WinogradNchwcTiles t(space, c);
    return ShapeOptions(ConvShape::Of(w)) + Define("WM", m_) + Define("VEC", t.vec) + Define("OCV", t.oc) +
           Define("TT", t.tiles) + Define("TB", RegisterTiles(t.tiles)) + Define("WG", t.work_group) +
           Define("UNROLL_CI", t.unroll_ci) + Define("FUSED_CI", t.fused_ci) +
           Define("STREAM_V", PrePassElements(ConvShape::Of(w), m_) * sizeof(float) > kPrePassBytesToStream);
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    const WinogradNchwcTiles t(space, c);
    const int64_t items = TileItems(TileCount(s, m_), t.tiles);
    const int64_t groups = ChannelGroups(s, t.vec, t.oc);
    LaunchGeometry g;
    g.dims = 2;
    g.global = {static_cast<size_t>((items + t.work_group - 1) / t.work_group * t.work_group),
                static_cast<size_t>(groups), 1};
    g.local = {static_cast<size_t>(t.work_group), 1, 1};
    return g;
  }

  std::optional<PrePass> PrePassOf(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    if (WinogradNchwcTiles(space, c).fused_ci > 0) return std::nullopt;
    const ConvShape s = ConvShape::Of(w);
    const int64_t tiles = TileCount(s, m_);
    PrePass pre;
    pre.kernel_name = "winograd_input_transform";
    pre.input = 0;
    pre.scratch_elements = PrePassElements(s, m_);
    pre.geometry.dims = 2;
    pre.geometry.global = {static_cast<size_t>((tiles + 3) / 4 * 4), static_cast<size_t>(ChannelBlocks(s.ci)), 1};
    pre.geometry.local = {4, 1, 1};
    return pre;
  }

  // On a CPU, the input is transformed in the kernel (64 channels at a time, or as many as fit;
  // a config already doing so keeps its chunk) where the pre-pass's output is far larger than a
  // core's caches (on one compute unit; on several, larger than a core's share of them) and each
  // tile would be transformed at most twice (output channels in at most two groups of tile_oc
  // vectors, widened first: TransformInWholeChunks, TransformEachTileOnce); everywhere else in
  // the pre-pass, so that a config transferred from a large image does not transform a smaller
  // one's tiles once per group (VGG-16's 224x224 layer's F(4x4) best on its 56x56 layer of 256
  // channels: four groups, 10.4 ms against 8.5 for the pre-pass, medians of three alternating
  // rounds; notebook, 2026-11-28, noon). With the pre-pass, a work-item whose weights outgrow
  // the L2 takes more tiles (ReadEachWeightForMoreTiles). Before either, tiles that overshoot the
  // image's by more than kMostComputedShare give way to fewer (FitTilesToTheImage).
  std::string FitToTheShape(const Workload& w, const ConfigSpace& space, const DeviceInfo& device,
                            Config& c) const override {
    if (device.type != "cpu") return {};
    const ConvShape s = ConvShape::Of(w);
    // A small image is the small-image rule's alone, so that fitting a fitted config changes nothing.
    if (TileCount(s, m_) <= kWholeImageTiles) return TakeASmallImageWhole(w, space, device, c);
    const size_t worth = device.compute_units > 1 ? kPrePassBytesWorthFusingOnSeveralCores : kPrePassBytesWorthFusing;
    const size_t knob = space.KnobIndex("fused_ci");
    Config start = c;
    const bool fewer_tiles = FitTilesToTheImage(s, m_, space, start);
    Config fitted = start;
    TransformInWholeChunks(space, m_, fitted);
    TransformEachTileOnce(space, fitted);
    const WinogradNchwcTiles t(space, fitted);
    const bool fuse = PrePassElements(s, m_) * sizeof(float) > worth && ChannelGroups(s, t.vec, t.oc) <= 2;
    bool more_tiles = false;
    if (!fuse) {
      fitted = start;
      SetKnobValue(space, fitted, "fused_ci", 0);
      more_tiles = ReadEachWeightForMoreTiles(s, m_, space, fitted);
    } else if (fitted[knob] == 0 && !TakeLargestValue(space, fitted, knob, 0, [](int64_t) { return true; })) {
      return {};  // no chunk of channels fits the private-memory bound
    }
    if (fitted == c || !space.IsValid(fitted)) return {};
    std::vector<std::string> reasons;
    if (fewer_tiles) reasons.push_back("tiles fitted to the image's " + std::to_string(TileCount(s, m_)));
    if (fuse) reasons.push_back("input transform in the kernel");
    if (!fuse && fitted[knob] != c[knob]) reasons.push_back("input transform in a pre-pass");
    if (more_tiles) reasons.push_back("at least seven tiles per read of the weights, which outgrow a core's L2");
    std::string why;
    for (const std::string& reason : reasons) why += (why.empty() ? "" : "; ") + reason;
    c = std::move(fitted);
    return why;
  }

 private:
  // On an image of at most kWholeImageTiles tiles (ResNet-18's 7x7 layers; 14x14 for F(4x4)),
  // where the transformed weights are far larger than the input, one work-item takes every tile,
  // so that each weight is read from memory once per layer, with as many vectors of output
  // channels as keep kRegisterSums sums in registers while every compute unit still gets a
  // group of them. One thread, pinned, medians of five alternating rounds: on ResNet-18's 7x7
  // layer F(2x2) with sixteen tiles 0.91 ms against 1.24 for six, F(4x4) with four vectors tied
  // with two (0.79 against 0.94 on a quieter machine); on its 14x14 layer F(4x4) with sixteen
  // tiles 0.53 against 0.67 for four (notebook, 2026-11-28, morning).
  std::string TakeASmallImageWhole(const Workload& w, const ConfigSpace& space, const DeviceInfo& device,
                                   Config& c) const {
    const ConvShape s = ConvShape::Of(w);
    const int64_t tile_count = TileCount(s, m_);
    const size_t tiles = space.KnobIndex("tiles"), oc = space.KnobIndex("tile_oc");
    Config fitted = c;
    const Knob& tile_knob = space.knob(tiles);
    for (fitted[tiles] = 0; fitted[tiles] + 1 < tile_knob.size(); ++fitted[tiles])
      if (tile_knob.value(fitted[tiles])[0] >= tile_count) break;  // the fewest that cover the image
    SetKnobValue(space, fitted, "work_group", 1);
    // The pre-pass: transformed in the kernel, the whole image would be transformed once per
    // group of output channels (F(4x4) on 7x7 at two threads: 0.65-0.94 ms against 0.45-0.58).
    SetKnobValue(space, fitted, "fused_ci", 0);
    const int64_t sums = RegisterTiles(tile_knob.value(fitted[tiles])[0]);
    const int64_t vec = space.Scalar(c, "vec");
    const int64_t fewest = space.knob(oc).value(0)[0];
    const bool found = TakeLargestValue(space, fitted, oc, -1, [&](int64_t vectors) {
      return vectors * sums <= kRegisterSums &&
             (vectors == fewest || ChannelGroups(s, vec, vectors) >= static_cast<int64_t>(device.compute_units));
    });
    if (!found || fitted == c) return {};
    c = std::move(fitted);
    return "one work-item takes the image's " + std::to_string(tile_count) + " tiles";
  }

  int m_;
  std::string description_;
};

}  // namespace

const KernelTemplate& Conv2dWinogradF2NchwcTemplate() {
  static const Conv2dWinogradNchwc instance(2);
  return instance;
}

const KernelTemplate& Conv2dWinogradF4NchwcTemplate() {
  static const Conv2dWinogradNchwc instance(4);
  return instance;
}

}  // namespace tt
