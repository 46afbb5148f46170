#include <gtest/gtest.h>

#include <numeric>

#include "ops/channel_blocking.h"
#include "ops/conv_shape.h"
#include "ops/depthwise_conv2d_template.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kAvx512{4096, 512 * 1024, 16};

std::vector<float> SmallValues(size_t count) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(static_cast<int>(i * 7 % 5) - 2);
  return v;
}

TEST(ChannelBlocking, ActivationsRoundTripWithZeroPaddingLanes) {
  const std::vector<float> plain = SmallValues(2 * 19 * 6);
  const std::vector<float> blocked = BlockChannels(plain.data(), 2, 19, 6);
  ASSERT_EQ(blocked.size(), 2u * 2 * 6 * 16);
  // Batch entry 1, channel 18 (block 1, lane 2), element 4.
  EXPECT_EQ(blocked[((1 * 2 + 1) * 6 + 4) * 16 + 2], plain[(1 * 19 + 18) * 6 + 4]);
  EXPECT_EQ(blocked[((1 * 2 + 1) * 6 + 4) * 16 + 3], 0.0f);
  EXPECT_EQ(UnblockChannels(blocked.data(), 2, 19, 6), plain);
}

// On the real channels, the blocked sketch's reference is the NCHW depthwise reference.
TEST(DepthwiseNchwcReference, MatchesTheNchwReferenceOnRealChannels) {
  for (const char* shape :
       {"n=2,c=19,h=9,w=7,kh=3,kw=3,stride=2,pad=1", "n=1,c=5,h=8,w=8,kh=3,kw=3,stride=1,pad=2,dilation=2"}) {
    const Workload w = ParseWorkload("depthwise_conv2d", shape);
    const ConvShape s = ConvShape::Of(w);
    const std::vector<float> data = SmallValues(static_cast<size_t>(s.input_elements()));
    const std::vector<float> weights = SmallValues(static_cast<size_t>(s.co * s.kh * s.kw));
    std::vector<float> expected(static_cast<size_t>(s.output_elements()));
    DepthwiseConv2dTemplate().Reference(w, {data.data(), weights.data()}, expected.data());
    const KernelTemplate& t = DepthwiseConv2dNchwcTemplate();
    const auto buffers = t.Buffers(w);
    const auto blocked_data = BlockChannels(data.data(), s.n, s.co, s.h * s.w);
    const auto blocked_weights = BlockChannels(weights.data(), 1, s.co, s.kh * s.kw);
    ASSERT_EQ(buffers[0].elements, blocked_data.size());
    ASSERT_EQ(buffers[1].elements, blocked_weights.size());
    std::vector<float> got(buffers[2].elements);
    t.Reference(w, {blocked_data.data(), blocked_weights.data()}, got.data());
    EXPECT_EQ(UnblockChannels(got.data(), s.n, s.co, s.oh * s.ow), expected) << shape;
  }
}

TEST(DepthwiseNchwcSpace, DeviceWidthsTailBlocksAndGeometry) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=2,c=57,h=14,w=14,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = DepthwiseConv2dNchwcTemplate();
  const ConfigSpace space = t.Space(w, kAvx512);
  EXPECT_EQ(space.knob(space.KnobIndex("vec")).size(), 3u);  // 4, 8, 16
  EXPECT_EQ(t.Space(w, {4096, 512 * 1024, 8}).knob(0).size(), 2u);
  const Config c = Pick(space, {{"vec", {8}}, {"tile_oh", {4}}, {"tile_ow", {3}}, {"work_group", {2}}});
  ASSERT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  const LaunchGeometry g = t.Geometry(w, space, c);
  EXPECT_EQ(g.global, (std::array<size_t, 3>{6, 4, 2 * 4 * 2}));  // ceil(14/3)=5 -> 6; 4 blocks x 2 vectors
  EXPECT_EQ(g.local, (std::array<size_t, 3>{2, 1, 1}));
  const std::string options = t.BuildOptions(w, space, c);
  for (const char* expected : {"-D C=57", "-D VEC=8", "-D TOH=4", "-D TOW=3", "-D WG=2"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const Config spill = Pick(space, {{"tile_oh", {4}}, {"tile_ow", {8}}});
  EXPECT_NE(space.WhyInvalid(spill).value_or("").find("accumulator vectors"), std::string::npos);
}

}  // namespace
}  // namespace tt
