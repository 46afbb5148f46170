#include <gtest/gtest.h>

#include <numeric>

#include "ops/channel_blocking.h"
#include "ops/conv2d_templates.h"
#include "ops/conv_shape.h"
#include "ops/kernel_template.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kAvx512{4096, 512 * 1024, 16};

std::vector<float> Iota(size_t count) {
  std::vector<float> v(count);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

TEST(ConvWeightPacking, BlocksOutputChannelsInnermostAndZeroesThePaddingLanes) {
  const ConvShape s = ConvShape::Of(ParseWorkload("conv2d", "n=1,ci=2,h=5,w=5,co=20,kh=3,kw=1,stride=1,pad=0"));
  const std::vector<float> oihw = Iota(20 * 2 * 3);
  const std::vector<float> packed = PackWeightsByOutputChannel(s, oihw.data());
  ASSERT_EQ(packed.size(), 2u * 2 * 3 * 16);
  // Channel 17, input channel 1, ky 2 (tap 5): block 1, lane 1.
  EXPECT_EQ(packed[(1 * 6 + 5) * 16 + 1], oihw[17 * 6 + 5]);
  // Channel 3, tap 0: block 0, lane 3.
  EXPECT_EQ(packed[3], oihw[3 * 6]);
  for (int tap = 0; tap < 6; ++tap)
    for (int lane = 4; lane < 16; ++lane) EXPECT_EQ(packed[(6 + tap) * 16 + lane], 0.0f);
  EXPECT_EQ(UnpackWeightsByOutputChannel(s, packed.data()), oihw);
}

TEST(Conv2dOcVecReference, ReadsPackedWeightsAndMatchesTheOihwReference) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=3,h=7,w=6,co=19,kh=3,kw=3,stride=2,pad=1,dilation=1");
  const ConvShape s = ConvShape::Of(w);
  const KernelTemplate& packed_template = Conv2dOcVecTemplate();
  const auto buffers = packed_template.Buffers(w);
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers[1].elements, static_cast<size_t>(2 * 3 * 9 * 16));
  const std::vector<float> data = Iota(static_cast<size_t>(s.input_elements()));
  std::vector<float> oihw = Iota(static_cast<size_t>(s.co * s.ci * 9));
  for (float& v : oihw) v = static_cast<float>(static_cast<int>(v) % 5 - 2);
  const std::vector<float> packed = PackWeightsByOutputChannel(s, oihw.data());
  std::vector<float> expected(static_cast<size_t>(s.output_elements())), got(expected.size());
  Conv2dDirectGlobalTemplate().Reference(w, {data.data(), oihw.data()}, expected.data());
  packed_template.Reference(w, {data.data(), packed.data()}, got.data());
  EXPECT_EQ(got, expected);
}

// The blocked sketch computes the same convolution: its reference, on blocked inputs, is the
// plain reference blocked, with zero padding lanes; an RGB image stays NCHW.
TEST(Conv2dOcVecNchwcReference, IsThePlainReferenceBlockedAndKeepsAnImageNchw) {
  for (const char* shape :
       {"n=2,ci=3,h=7,w=6,co=19,kh=3,kw=3,stride=2,pad=1", "n=1,ci=21,h=5,w=4,co=17,kh=1,kw=1,stride=1,pad=0"}) {
    const Workload w = ParseWorkload("conv2d", shape);
    const ConvShape s = ConvShape::Of(w);
    const KernelTemplate& blocked = Conv2dOcVecNchwcTemplate();
    const bool image = s.ci <= 4;
    const auto buffers = blocked.Buffers(w);
    EXPECT_EQ(buffers[0].elements,
              static_cast<size_t>(image ? s.input_elements() : BlockedElements(s.n, s.ci, s.h * s.w)));
    EXPECT_EQ(buffers[2].elements, static_cast<size_t>(BlockedElements(s.n, s.co, s.oh * s.ow)));
    EXPECT_EQ(blocked.ChannelBlockedBuffers(w), image ? (std::vector<size_t>{1, 2}) : (std::vector<size_t>{0, 1, 2}));
    std::vector<float> data = Iota(static_cast<size_t>(s.input_elements()));
    for (float& v : data) v = static_cast<float>(static_cast<int>(v) % 7 - 3);
    std::vector<float> oihw = Iota(static_cast<size_t>(s.co * s.ci * s.kh * s.kw));
    for (float& v : oihw) v = static_cast<float>(static_cast<int>(v) % 5 - 2);
    const std::vector<float> packed = PackWeightsByOutputChannel(s, oihw.data());
    std::vector<float> plain(static_cast<size_t>(s.output_elements()));
    Conv2dDirectGlobalTemplate().Reference(w, {data.data(), oihw.data()}, plain.data());
    const std::vector<float> in = image ? data : BlockChannels(data.data(), s.n, s.ci, s.h * s.w);
    std::vector<float> got(buffers[2].elements, 1.0f);
    blocked.Reference(w, {in.data(), packed.data()}, got.data());
    EXPECT_EQ(got, BlockChannels(plain.data(), s.n, s.co, s.oh * s.ow)) << shape;
  }
}

TEST(Conv2dOcVecSpace, VectorWidthsComeFromTheDevice) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=8,h=14,w=14,co=32,kh=3,kw=3,stride=1,pad=1");
  const auto widths = [&](unsigned native) {
    const ConfigSpace space = Conv2dOcVecTemplate().Space(w, {4096, 512 * 1024, native});
    std::vector<int64_t> values;
    const Knob& vec = space.knob(space.KnobIndex("vec"));
    for (size_t i = 0; i < vec.size(); ++i) values.push_back(vec.value(i)[0]);
    return values;
  };
  EXPECT_EQ(widths(16), (std::vector<int64_t>{4, 8, 16}));  // AVX-512
  EXPECT_EQ(widths(8), (std::vector<int64_t>{4, 8}));       // AVX2
  EXPECT_EQ(widths(1), (std::vector<int64_t>{4}));          // a GPU reporting scalar floats
  EXPECT_EQ(widths(0), (std::vector<int64_t>{4, 8, 16}));   // unknown: a replayed space keeps all
}

TEST(Conv2dOcVecSpace, OddChannelsAndRowsKeepEveryWidthAndTailBlock) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=57,h=14,w=14,co=117,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = Conv2dOcVecTemplate();
  const ConfigSpace space = t.Space(w, kAvx512);
  const Config wide = Pick(space, {{"vec", {16}}, {"tile_oc", {2}}, {"tile_oh", {4}}, {"tile_ow", {3}}});
  EXPECT_TRUE(space.IsValid(wide)) << *space.WhyInvalid(wide);
  const std::string options = t.BuildOptions(w, space, wide);
  for (const char* expected : {"-D VEC=16", "-D OCV=2", "-D TOH=4", "-D TOW=3", "-D CO=117", "-D WG=1"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const LaunchGeometry g = t.Geometry(w, space, wide);
  EXPECT_EQ(g.global, (std::array<size_t, 3>{5, 4, 4}));  // ceil(14/3), ceil(14/4), ceil(117/32)
  EXPECT_EQ(g.local, (std::array<size_t, 3>{1, 1, 1}));
  const Config spill = Pick(space, {{"tile_oc", {4}}, {"tile_oh", {4}}, {"tile_ow", {4}}});
  EXPECT_NE(space.WhyInvalid(spill).value_or("").find("accumulator vectors"), std::string::npos);
  const Config past = Pick(space, {{"vec", {16}}, {"tile_oc", {4}}});
  const ConfigSpace narrow =
      t.Space(ParseWorkload("conv2d", "n=1,ci=3,h=8,w=8,co=20,kh=1,kw=1,stride=1,pad=0"), kAvx512);
  EXPECT_NE(narrow.WhyInvalid(past).value_or("").find("past the output channels"), std::string::npos);
  const Config group = Pick(space, {{"tile_ow", {14}}, {"work_group", {4}}});
  EXPECT_NE(space.WhyInvalid(group).value_or("").find("work_group exceeds"), std::string::npos);
}

// pad_input: on channel-blocked input of a padded convolution only; with it, a pre-pass copies
// the image into a zeroed frame wide enough for every block's window, and the kernel reads that.
TEST(Conv2dOcVecSpace, PadInputFramesTheBlockedImageForEveryBlock) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=32,h=14,w=14,co=64,kh=3,kw=3,stride=2,pad=1");
  const KernelTemplate& blocked = Conv2dOcVecNchwcTemplate();
  const ConfigSpace space = blocked.Space(w, kAvx512);
  ASSERT_TRUE(space.HasKnob("pad_input"));
  EXPECT_FALSE(Conv2dOcVecTemplate().Space(w, kAvx512).HasKnob("pad_input"));
  const auto has_pad_input = [&](const char* shape) {
    return blocked.Space(ParseWorkload("conv2d", shape), kAvx512).HasKnob("pad_input");
  };
  EXPECT_FALSE(has_pad_input("n=1,ci=32,h=14,w=14,co=64,kh=1,kw=1,stride=2,pad=0"));  // no padding
  EXPECT_FALSE(has_pad_input("n=1,ci=3,h=14,w=14,co=64,kh=3,kw=3,stride=2,pad=1"));   // an NCHW image

  // 7x7 outputs in blocks of 1x4: the last column block reads up to column (8-1)*2+2 = 16.
  const Config framed = Pick(space, {{"tile_oh", {1}}, {"tile_ow", {4}}, {"work_group", {1}}, {"pad_input", {1}}});
  ASSERT_TRUE(space.IsValid(framed)) << *space.WhyInvalid(framed);
  const std::string options = blocked.BuildOptions(w, space, framed);
  for (const char* expected : {"-D PAD_INPUT=1", "-D PH=16", "-D PW=17"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const std::optional<PrePass> pre = blocked.PrePassOf(w, space, framed);
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->kernel_name, "pad_input_nchwc");
  EXPECT_EQ(pre->input, 0u);
  EXPECT_EQ(pre->scratch_elements, 2u * 32 * 16 * 17);
  EXPECT_EQ(pre->geometry.global, (std::array<size_t, 3>{16, 4, 1}));  // rows, n x channel blocks

  const Config plain = Pick(space, {{"tile_oh", {1}}, {"tile_ow", {4}}, {"work_group", {1}}, {"pad_input", {0}}});
  EXPECT_FALSE(blocked.PrePassOf(w, space, plain));
  EXPECT_EQ(blocked.BuildOptions(w, space, plain).find("PAD_INPUT"), std::string::npos);
}

// Replays the kernel's indexing (conv2d_oc_vec.cl) for every valid config of a small space:
// every output element is stored exactly once.
TEST(Conv2dOcVecGeometry, EveryValidConfigStoresEachOutputOnce) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=1,h=5,w=7,co=21,kh=1,kw=1,stride=1,pad=0");
  const KernelTemplate& t = Conv2dOcVecTemplate();
  const ConfigSpace space = t.Space(w, kAvx512);
  const ConvShape s = ConvShape::Of(w);
  size_t checked = 0;
  for (uint64_t index = 0; index < space.Size(); ++index) {
    const Config c = space.FromIndex(index);
    if (!space.IsValid(c) || space.Scalar(c, "unroll_kw")) continue;
    const int64_t vec = space.Scalar(c, "vec"), ocv = space.Scalar(c, "tile_oc");
    const int64_t toh = space.Scalar(c, "tile_oh"), tow = space.Scalar(c, "tile_ow");
    const int64_t column_blocks = (s.ow + tow - 1) / tow, groups = (s.co + vec * ocv - 1) / (vec * ocv);
    const LaunchGeometry g = t.Geometry(w, space, c);
    std::vector<int> writes(static_cast<size_t>(s.output_elements()), 0);
    for (size_t gz = 0; gz < g.global[2]; ++gz)
      for (size_t gy = 0; gy < g.global[1]; ++gy)
        for (size_t gx = 0; gx < std::min<size_t>(g.global[0], column_blocks); ++gx) {
          const int64_t n = gz / groups, f0 = gz % groups * vec * ocv;
          for (int64_t f = f0; f < std::min(f0 + vec * ocv, s.co); ++f)
            for (int64_t y = gy * toh; y < std::min<int64_t>((gy + 1) * toh, s.oh); ++y)
              for (int64_t x = gx * tow; x < std::min<int64_t>((gx + 1) * tow, s.ow); ++x)
                ++writes[((n * s.co + f) * s.oh + y) * s.ow + x];
        }
    EXPECT_EQ(std::count(writes.begin(), writes.end(), 1), s.output_elements()) << space.Key(c);
    EXPECT_EQ(g.global[0] % g.local[0], 0u);
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

// ResNet-18's smallest layers (7x7 outputs, 3x3 stride 1 and stride 2): every valid config of the
// channel-blocked sketch launches at least 4 work-groups, two per core of a two-thread CPU
// device, because a work-item holds at most 28 accumulator vectors (so at most 448 of the 512
// channels times pixels of one row block) and the channel groups and row blocks each get a
// work-group. Work that does not split across the threads cannot come from the NDRange.
TEST(Conv2dOcVecGeometry, SmallLayersSplitIntoWorkGroupsForEveryCore) {
  for (const char* shape :
       {"n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1", "n=1,ci=256,h=14,w=14,co=512,kh=3,kw=3,stride=2,pad=1",
        "n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1"}) {
    const Workload w = ParseWorkload("conv2d", shape);
    const KernelTemplate& t = Conv2dOcVecNchwcTemplate();
    for (const DeviceLimits& limits : {kAvx512, DeviceLimits{4096, 512 * 1024, 8}}) {
      const ConfigSpace space = t.Space(w, limits);
      size_t valid = 0, fine = 0;
      for (uint64_t index = 0; index < space.Size(); ++index) {
        const Config c = space.FromIndex(index);
        if (!space.IsValid(c)) continue;
        ++valid;
        const LaunchGeometry g = t.Geometry(w, space, c);
        const size_t groups = g.global[0] / g.local[0] * (g.global[1] / g.local[1]) * (g.global[2] / g.local[2]);
        EXPECT_GE(groups, 4u) << shape << " " << space.Key(c);
        if (groups >= 16) ++fine;
      }
      EXPECT_GT(valid, 50u) << shape;
      EXPECT_GT(fine, valid / 2) << shape;  // most configs give each of two threads 8 or more
    }
  }
}

}  // namespace
}  // namespace tt
