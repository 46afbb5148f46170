#include "ops/depthwise_conv2d_template.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/errors.h"
#include "ops/conv_shape.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kCpuLimits{4096, 512 * 1024};

TEST(ParseDepthwise, NamedKeysAndOutputExtent) {
  const Workload w = ParseWorkload("depthwise_conv2d", "stride=2,pad=1,kw=3,kh=3,w=112,h=112,c=64,n=1");
  EXPECT_EQ(w.Key(), "depthwise_conv2d:n=1,c=64,h=112,w=112,kh=3,kw=3,stride=2,pad=1,dilation=1");
  const ConvShape s = ConvShape::Of(w);
  EXPECT_EQ(s.co, 64);
  EXPECT_EQ(s.oh, 56);
  EXPECT_EQ(s.ow, 56);
  EXPECT_EQ(&PickTemplate(w, ""), &DepthwiseConv2dTemplate());
}

TEST(ParseDepthwise, RejectsConvKeysAndKernelsLargerThanTheInput) {
  const std::map<std::string, std::string> bad = {
      {"n=1,ci=32,h=112,w=112,kh=3,kw=3,stride=1,pad=1", "unknown key 'ci'"},
      {"n=1,c=32,h=112,w=112,co=32,kh=3,kw=3,stride=1,pad=1", "unknown key 'co'"},
      {"n=1,c=32,h=2,w=2,kh=5,kw=5,stride=1,pad=1", "larger than the padded input"},
      {"n=1,c=0,h=8,w=8,kh=3,kw=3,stride=1,pad=1", "'c' must be"},
  };
  for (const auto& [shape, message] : bad) {
    try {
      ParseWorkload("depthwise_conv2d", shape);
      ADD_FAILURE() << "accepted " << shape;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(DepthwiseSpace, HasAutoTvmDepthwiseConv2dNchwKnobs) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=1,c=32,h=112,w=112,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = DepthwiseConv2dTemplate().Space(w, kCpuLimits);
  ASSERT_EQ(space.num_knobs(), 5u);
  const std::vector<std::pair<std::string, int64_t>> splits = {{"tile_f", 32}, {"tile_y", 112}, {"tile_x", 112}};
  for (size_t i = 0; i < splits.size(); ++i) {
    EXPECT_EQ(space.knob(i).name(), splits[i].first);
    EXPECT_EQ(space.knob(i).kind(), KnobKind::kSplit);
    const KnobValue v = space.knob(i).value(0);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_EQ(v[0] * v[1] * v[2] * v[3], splits[i].second);
  }
  EXPECT_EQ(space.knob(3).name(), "auto_unroll_max_step");
  EXPECT_EQ(space.knob(3).size(), 3u);
  EXPECT_EQ(space.knob(4).name(), "unroll_explicit");
  EXPECT_EQ(DepthwiseConv2dTemplate().Flops(w), 2.0 * 32 * 112 * 112 * 9);
}

TEST(DepthwiseVecSpace, AddsAVectorWidthThatMustDivideTheContiguousColumns) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=1,c=16,h=32,w=32,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = DepthwiseConv2dVecTemplate();
  const ConfigSpace space = t.Space(w, kCpuLimits);
  ASSERT_EQ(space.num_knobs(), 6u);
  EXPECT_EQ(space.knob(5).name(), "vec");
  const Config fits =
      Pick(space, {{"tile_f", {16, 1, 1, 1}}, {"tile_y", {32, 1, 1, 1}}, {"tile_x", {1, 2, 1, 16}}, {"vec", {16}}});
  EXPECT_TRUE(space.IsValid(fits)) << *space.WhyInvalid(fits);
  EXPECT_NE(t.BuildOptions(w, space, fits).find("-D VEC=16"), std::string::npos);
  const Config misfit =
      Pick(space, {{"tile_f", {16, 1, 1, 1}}, {"tile_y", {32, 1, 1, 1}}, {"tile_x", {2, 2, 2, 4}}, {"vec", {8}}});
  EXPECT_NE(space.WhyInvalid(misfit).value_or("").find("vec 8 does not divide tile_x[3]"), std::string::npos);
  EXPECT_NE(DepthwiseConv2dTemplate()
                .BuildOptions(w, DepthwiseConv2dTemplate().Space(w, kCpuLimits), Config(5, 0))
                .find("-D VEC=1"),
            std::string::npos);
  EXPECT_EQ(ApplicableTemplates(w).size(), 3u);
}

TEST(DepthwiseSpace, LimitsInvalidateBeforeCompiling) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=1,c=64,h=64,w=64,kh=3,kw=3,stride=1,pad=1");
  const DeviceLimits small{256, 16 * 1024};
  const ConfigSpace space = DepthwiseConv2dTemplate().Space(w, small);
  const auto why = [&](std::map<std::string, KnobValue> v) { return space.WhyInvalid(Pick(space, v)).value_or(""); };
  EXPECT_NE(why({{"tile_f", {64, 1, 1, 1}}, {"tile_y", {1, 1, 16, 4}}, {"tile_x", {1, 1, 32, 2}}})
                .find("work-group size 512"),
            std::string::npos);
  // 16 channels x 66 x 66 input window: 278 KiB.
  EXPECT_NE(why({{"tile_f", {4, 1, 1, 16}}, {"tile_y", {1, 1, 1, 64}}, {"tile_x", {1, 1, 64, 1}}}).find("local memory"),
            std::string::npos);
  EXPECT_NE(
      why({{"tile_f", {8, 1, 1, 8}}, {"tile_y", {8, 1, 1, 8}}, {"tile_x", {8, 1, 1, 8}}}).find("256 accumulators"),
      std::string::npos);
  EXPECT_EQ(why({{"tile_f", {16, 1, 4, 1}}, {"tile_y", {8, 1, 8, 1}}, {"tile_x", {4, 1, 4, 4}}}), "");
}

TEST(DepthwiseBuildOptions, CarryShapeSplitsAndUnrollDecisions) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=2,c=12,h=15,w=15,kh=3,kw=3,stride=2,pad=1");
  const KernelTemplate& t = DepthwiseConv2dTemplate();
  const ConfigSpace space = t.Space(w, kCpuLimits);
  // 4 accumulators: kx (3 x 4) and ky x kx (9 x 4 = 36) loops both fit in 256.
  const Config c = Pick(space, {{"tile_f", {3, 2, 2, 1}},
                                {"tile_y", {1, 1, 4, 2}},
                                {"tile_x", {2, 1, 4, 1}},
                                {"auto_unroll_max_step", {256}},
                                {"unroll_explicit", {1}}});
  const std::string options = t.BuildOptions(w, space, c);
  for (const char* expected : {"-D C=12", "-D OH=8", "-D OW=8", "-D STRIDE=2", "-D TF0=3", "-D TF1=2", "-D TY3=2",
                               "-D UNROLL_KX=1", "-D UNROLL_KY=1", "-D UNROLL_FETCH=1"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const Config no_unroll = Pick(space, {{"tile_f", {3, 2, 2, 1}}});
  EXPECT_NE(t.BuildOptions(w, space, no_unroll).find("-D UNROLL_KX=0"), std::string::npos);
  const LaunchGeometry g = t.Geometry(w, space, c);
  EXPECT_EQ(g.local, (std::array<size_t, 3>{4, 4, 2}));
  EXPECT_EQ(g.global, (std::array<size_t, 3>{8, 4, 2 * 3 * 2}));
}

// Every output element written exactly once by every valid config.
TEST(DepthwiseGeometry, EveryValidConfigCoversEachOutputOnce) {
  const Workload w = ParseWorkload("depthwise_conv2d", "n=2,c=12,h=7,w=6,kh=1,kw=1,stride=1,pad=0");
  EXPECT_GT(testing::ExpectDirectConvCoversEachOutputOnce(DepthwiseConv2dTemplate(), w, kCpuLimits), 400u);
}

TEST(DepthwiseReference, MatchesHandComputedStridedPaddedCase) {
  // Two 3x3 channels, 2x2 kernels, stride 2, pad 1: each output 2x2; channels never mix.
  const Workload w = ParseWorkload("depthwise_conv2d", "n=1,c=2,h=3,w=3,kh=2,kw=2,stride=2,pad=1");
  const std::vector<float> image = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  const std::vector<float> weights = {1, 0, 0, 1, 0, 1, 1, 0};  // diagonal, anti-diagonal
  std::vector<float> out(8);
  DepthwiseConv2dTemplate().Reference(w, {image.data(), weights.data()}, out.data());
  // Windows (rows -1..0, cols -1..0), (-1..0, 1..2), (1..2, -1..0), (1..2, 1..2) of each padded channel.
  EXPECT_EQ(out, (std::vector<float>{1, 3, 7, 14, 0, 20, 40, 140}));
}

}  // namespace
}  // namespace tt
