#include "ops/conv2d_templates.h"

#include <gtest/gtest.h>

#include <map>

#include "core/errors.h"
#include "ops/conv_shape.h"
#include "ops/kernel_template.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kCpuLimits{4096, 512 * 1024};

TEST(ParseConv2d, NamedKeysInAnyOrderWithDilationDefault) {
  const Workload w = ParseWorkload("conv2d", "pad=1,stride=1,kw=3,kh=3,co=64,w=56,h=56,ci=64,n=1");
  EXPECT_EQ(w.Key(), "conv2d:n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1,dilation=1");
  const ConvShape s = ConvShape::Of(w);
  EXPECT_EQ(s.oh, 56);
  EXPECT_EQ(s.ow, 56);
  const ConvShape alexnet1 =
      ConvShape::Of(ParseWorkload("conv2d", "n=1,ci=3,h=227,w=227,co=64,kh=11,kw=11,stride=4,pad=0"));
  EXPECT_EQ(alexnet1.oh, 55);
  const ConvShape dilated =
      ConvShape::Of(ParseWorkload("conv2d", "n=2,ci=5,h=9,w=8,co=3,kh=3,kw=3,stride=2,pad=1,dilation=2"));
  EXPECT_EQ(dilated.oh, 4);  // (9 + 2 - 5) / 2 + 1
  EXPECT_EQ(dilated.ow, 3);  // (8 + 2 - 5) / 2 + 1
}

TEST(ParseConv2d, RejectsBadShapesNamingTheProblem) {
  const std::map<std::string, std::string> bad = {
      {"n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1", "'pad' is missing"},
      {"n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1,groups=2", "unknown key 'groups'"},
      {"n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=-1", "'pad' must be an integer of at least 0"},
      {"n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=0,pad=1", "'stride' must be"},
      {"n=1,n=2,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1", "'n' given twice"},
      {"1,64,56,56,64,3,3,1,1", "malformed shape"},
      {"n=1,ci=4,h=3,w=3,co=4,kh=5,kw=5,stride=1,pad=0", "larger than the padded input"},
  };
  for (const auto& [shape, message] : bad) {
    try {
      ParseWorkload("conv2d", shape);
      ADD_FAILURE() << "accepted " << shape;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(Conv2dTemplates, NineSketchesAndWinogradOnlyWhereItApplies) {
  const auto names = [](const Workload& w) {
    std::vector<std::string> n;
    for (const auto* t : ApplicableTemplates(w)) n.emplace_back(t->name());
    return n;
  };
  const std::vector<std::string> all = {"conv2d_direct_local", "conv2d_direct_global",     "conv2d_direct_vec",
                                        "conv2d_oc_vec",       "conv2d_winograd",          "conv2d_implicit_gemm",
                                        "conv2d_oc_vec_nchwc", "conv2d_winograd_f2_nchwc", "conv2d_winograd_f4_nchwc"};
  EXPECT_EQ(names(ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1")), all);
  const Workload strided = ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=128,kh=3,kw=3,stride=2,pad=1");
  std::vector<std::string> without_winograd = all;
  std::erase_if(without_winograd, [](const std::string& n) { return n.find("winograd") != std::string::npos; });
  EXPECT_EQ(names(strided), without_winograd);
  for (const auto* t : TemplatesFor("conv2d"))
    EXPECT_EQ(IsWinogradSketch(*t), t->name().find("winograd") != std::string::npos) << t->name();
  EXPECT_EQ(PickTemplate(strided, "").name(), "conv2d_direct_local");
  try {
    PickTemplate(strided, "conv2d_winograd");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a 3x3 kernel with stride 1"), std::string::npos) << e.what();
  }
}

TEST(Conv2dTemplates, SketchesShareFlopsSoTheyCompareByTime) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1");
  const double direct = 2.0 * 2 * 64 * 56 * 56 * 64 * 9;
  for (const auto* t : TemplatesFor("conv2d")) EXPECT_DOUBLE_EQ(t->Flops(w), direct) << t->name();
}

TEST(Conv2dDirectSpace, HasAutoTvmConv2dNchwKnobs) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = Conv2dDirectLocalTemplate().Space(w, kCpuLimits);
  const std::vector<std::pair<std::string, size_t>> splits = {{"tile_f", 4},  {"tile_y", 4},  {"tile_x", 4},
                                                              {"tile_rc", 2}, {"tile_ry", 2}, {"tile_rx", 2}};
  ASSERT_EQ(space.num_knobs(), 8u);
  for (size_t i = 0; i < splits.size(); ++i) {
    EXPECT_EQ(space.knob(i).name(), splits[i].first);
    EXPECT_EQ(space.knob(i).kind(), KnobKind::kSplit);
    EXPECT_EQ(space.knob(i).value(0).size(), splits[i].second);
  }
  EXPECT_EQ(space.knob(6).name(), "auto_unroll_max_step");
  EXPECT_EQ(space.knob(7).name(), "unroll_explicit");
}

TEST(Conv2dDirectSpace, LimitsInvalidateBeforeCompilingAndOnlyLocalCountsLocalMemory) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=64,h=32,w=32,co=64,kh=3,kw=3,stride=1,pad=1");
  const DeviceLimits small{256, 16 * 1024};
  const ConfigSpace local = Conv2dDirectLocalTemplate().Space(w, small);
  const ConfigSpace global = Conv2dDirectGlobalTemplate().Space(w, small);
  const std::map<std::string, KnobValue> big_tiles = {
      {"tile_f", {1, 2, 2, 16}}, {"tile_y", {1, 1, 8, 4}}, {"tile_x", {1, 1, 8, 4}}, {"tile_rc", {1, 64}}};
  EXPECT_NE(global.WhyInvalid(Pick(global, big_tiles)).value_or("").find("more than 256 accumulators"),
            std::string::npos);
  const std::map<std::string, KnobValue> wide = {
      {"tile_f", {4, 1, 16, 1}}, {"tile_y", {2, 1, 16, 1}}, {"tile_x", {2, 1, 16, 1}}, {"tile_rc", {1, 64}}};
  EXPECT_NE(local.WhyInvalid(Pick(local, wide)).value_or("").find("work-group size 4096"), std::string::npos);
  const std::map<std::string, KnobValue> fat_step = {{"tile_f", {4, 1, 4, 4}}, {"tile_y", {4, 1, 4, 2}},
                                                     {"tile_x", {4, 1, 4, 2}}, {"tile_rc", {1, 64}},
                                                     {"tile_ry", {1, 3}},      {"tile_rx", {1, 3}}};
  EXPECT_NE(local.WhyInvalid(Pick(local, fat_step)).value_or("").find("local memory"), std::string::npos);
  EXPECT_TRUE(global.IsValid(Pick(global, fat_step))) << *global.WhyInvalid(Pick(global, fat_step));
}

TEST(Conv2dDirectVecSpace, AddsAVectorWidthThatMustDivideTheContiguousColumns) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=16,h=32,w=32,co=16,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = Conv2dDirectVecTemplate();
  const ConfigSpace space = t.Space(w, kCpuLimits);
  EXPECT_EQ(space.num_knobs(), 9u);
  EXPECT_EQ(space.knob(8).name(), "vec");
  const Config fits =
      Pick(space, {{"tile_f", {16, 1, 1, 1}}, {"tile_y", {32, 1, 1, 1}}, {"tile_x", {1, 2, 1, 16}}, {"vec", {8}}});
  EXPECT_TRUE(space.IsValid(fits)) << *space.WhyInvalid(fits);
  EXPECT_NE(t.BuildOptions(w, space, fits).find("-D VEC=8"), std::string::npos);
  const Config misfit =
      Pick(space, {{"tile_f", {16, 1, 1, 1}}, {"tile_y", {32, 1, 1, 1}}, {"tile_x", {2, 2, 2, 4}}, {"vec", {8}}});
  EXPECT_NE(space.WhyInvalid(misfit).value_or("").find("vec 8 does not divide tile_x[3]"), std::string::npos);
  // The other direct sketches keep AutoTVM's knob set exactly.
  EXPECT_FALSE(Conv2dDirectGlobalTemplate().Space(w, kCpuLimits).HasKnob("vec"));
}

TEST(Conv2dDirectBuildOptions, CarryShapeSplitsAndUnrollDecisions) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=16,h=14,w=14,co=32,kh=3,kw=3,stride=2,pad=1");
  const KernelTemplate& t = Conv2dDirectLocalTemplate();
  const ConfigSpace space = t.Space(w, kCpuLimits);
  const Config c = Pick(space, {{"tile_f", {2, 2, 4, 2}},
                                {"tile_y", {7, 1, 1, 1}},
                                {"tile_x", {1, 1, 7, 1}},
                                {"tile_rc", {4, 4}},
                                {"tile_ry", {3, 1}},
                                {"tile_rx", {1, 3}},
                                {"auto_unroll_max_step", {512}},
                                {"unroll_explicit", {1}}});
  const std::string options = t.BuildOptions(w, space, c);
  // 4 accumulators: rx (3 x 4 = 12) and ry x rx unroll, rc x ry x rx (4 x 3 x 4 = 48) too.
  for (const char* expected : {"-D OH=7", "-D OW=7", "-D STRIDE=2", "-D TF0=2", "-D TF3=2", "-D RC1=4", "-D RX1=3",
                               "-D LOCAL=1", "-D UNROLL_RX=1", "-D UNROLL_RC=1", "-D UNROLL_FETCH=1"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const Config no_unroll = Pick(space, {{"tile_f", {2, 2, 4, 2}}, {"tile_rc", {4, 4}}});
  EXPECT_NE(t.BuildOptions(w, space, no_unroll).find("-D UNROLL_RX=0"), std::string::npos);
  const LaunchGeometry g = t.Geometry(w, space, c);
  EXPECT_EQ(g.local, (std::array<size_t, 3>{7, 1, 4}));
  EXPECT_EQ(g.global, (std::array<size_t, 3>{7, 7, 8}));
}

// Every output element written exactly once by every valid config.
TEST(Conv2dDirectGeometry, EveryValidConfigCoversEachOutputOnce) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=2,h=7,w=5,co=6,kh=1,kw=1,stride=1,pad=0");
  EXPECT_GT(testing::ExpectDirectConvCoversEachOutputOnce(Conv2dDirectGlobalTemplate(), w, kCpuLimits), 400u);
}

TEST(Conv2dReference, MatchesHandComputedStridedPaddedCase) {
  // One 3x3 image, two output channels, 2x2 kernel, stride 2, pad 1: output 2x2.
  const Workload w = ParseWorkload("conv2d", "n=1,ci=1,h=3,w=3,co=2,kh=2,kw=2,stride=2,pad=1");
  const std::vector<float> image = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> weights = {1, 0, 0, 1, 0, 1, 1, 0};  // identity-diagonal, anti-diagonal
  std::vector<float> out(8);
  Conv2dDirectLocalTemplate().Reference(w, {image.data(), weights.data()}, out.data());
  // Windows (rows -1..0, cols -1..0), (-1..0, 1..2), (1..2, -1..0), (1..2, 1..2) of the padded image.
  EXPECT_EQ(out, (std::vector<float>{1, 3, 7, 14, 0, 2, 4, 14}));
}

TEST(Conv2dWinogradSpace, SplitsChannelsTilesAndInputChannels) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=16,h=7,w=9,co=8,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = Conv2dWinogradTemplate().Space(w, kCpuLimits);
  int64_t tiles = 1;
  for (int64_t f : space.knob(space.KnobIndex("tile_x")).value(0)) tiles *= f;
  EXPECT_EQ(tiles, 2 * 4 * 5);  // n x ceil(7/2) x ceil(9/2)
  EXPECT_EQ(space.knob(space.KnobIndex("tile_rc")).value(0).size(), 2u);
}

}  // namespace
}  // namespace tt
