#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ops/conv2d_templates.h"
#include "ops/kernel_template.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kAvx512{4096, 1024 * 1024, 16};

// The product of a split knob's factors, i.e. the extent it splits.
int64_t SplitExtent(const ConfigSpace& space, const std::string& knob) {
  const KnobValue v = space.knob(space.KnobIndex(knob)).value(0);
  int64_t product = 1;
  for (int64_t f : v) product *= f;
  return product;
}

TEST(Conv2dImplicitGemmSpace, SplitsChannelsAndPixelsRoundedUpKeepingTheRowWidth) {
  // M = 117 -> 128, N = 2 * 14 * 14 = 392 (a multiple of 8), K = 57 * 9.
  const ConfigSpace pruned = Conv2dImplicitGemmTemplate().Space(
      ParseWorkload("conv2d", "n=2,ci=57,h=14,w=14,co=117,kh=3,kw=3,stride=1,pad=1"), kAvx512);
  EXPECT_EQ(SplitExtent(pruned, "tile_x"), 128);
  EXPECT_EQ(SplitExtent(pruned, "tile_y"), 392);
  EXPECT_EQ(SplitExtent(pruned, "tile_k"), 57 * 9);
  // 7x7 output: N = 49 -> 56; 203 channels -> 208.
  const ConfigSpace deep = Conv2dImplicitGemmTemplate().Space(
      ParseWorkload("conv2d", "n=1,ci=64,h=7,w=7,co=203,kh=1,kw=1,stride=1,pad=0"), kAvx512);
  EXPECT_EQ(SplitExtent(deep, "tile_x"), 208);
  EXPECT_EQ(SplitExtent(deep, "tile_y"), 56);
  // 14x14: 196 pixels; rounded up to 200 the width would no longer divide it.
  const ConfigSpace narrow = Conv2dImplicitGemmTemplate().Space(
      ParseWorkload("conv2d", "n=1,ci=8,h=14,w=14,co=16,kh=3,kw=3,stride=1,pad=1"), kAvx512);
  EXPECT_EQ(SplitExtent(narrow, "tile_y"), 196);
  const Knob& vec = deep.knob(deep.KnobIndex("vec"));
  ASSERT_EQ(vec.size(), 3u);  // 4, 8, 16 on AVX-512
  EXPECT_EQ(vec.value(2)[0], 16);
}

TEST(Conv2dImplicitGemmSpace, RulesNameWhatIsWrong) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=57,h=7,w=7,co=117,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = Conv2dImplicitGemmTemplate().Space(w, kAvx512);
  const std::map<std::string, KnobValue> good = {
      {"tile_x", {4, 1, 2, 16}}, {"tile_y", {1, 1, 7, 8}}, {"tile_k", {57, 3, 3}}, {"vec", {16}}};
  // `good` with some knobs changed: why it is invalid.
  const auto why = [&](const ConfigSpace& sp, const std::map<std::string, KnobValue>& changes) {
    auto values = good;
    for (const auto& [knob, value] : changes) values[knob] = value;
    return sp.WhyInvalid(Pick(sp, values)).value_or("");
  };
  EXPECT_EQ(why(space, {}), "");
  EXPECT_NE(why(space, {{"tile_x", {4, 1, 4, 8}}}).find("does not divide tile_x[3]"), std::string::npos);
  EXPECT_NE(why(space, {{"tile_x", {1, 1, 1, 128}}, {"vec", {4}}}).find("accumulator vectors"), std::string::npos);
  // 117 channels rounded up to 128: a tile of 8 channels starting at 120 computes only padding.
  EXPECT_NE(why(space, {{"tile_x", {16, 1, 1, 8}}, {"vec", {8}}}).find("wholly past the output channels"),
            std::string::npos);
  // 49 pixels rounded up to 56: a tile of 7 starting at 49 likewise.
  EXPECT_NE(why(space, {{"tile_y", {8, 1, 1, 7}}}).find("past the output pixels"), std::string::npos);
  EXPECT_NE(
      why(space, {{"tile_x", {4, 1, 8, 4}}, {"vec", {4}}, {"tile_y", {1, 1, 56, 1}}}).find("fewer than 8 accumulator"),
      std::string::npos);
  EXPECT_NE(why(space, {{"tile_y", {7, 1, 1, 8}}}).find("fewer than 2 x vec pixels"), std::string::npos);
  EXPECT_NE(why(space, {{"tile_k", {1, 1, 513}}}).find("inner unrolled step too large"), std::string::npos);
  const ConfigSpace small_groups = Conv2dImplicitGemmTemplate().Space(w, {4, 1024 * 1024, 16});
  EXPECT_NE(why(small_groups, {{"tile_x", {1, 1, 8, 16}}}).find("work-group size"), std::string::npos);
}

TEST(Conv2dImplicitGemmBuildOptions, CarryShapeSplitsAndGeometry) {
  const Workload w = ParseWorkload("conv2d", "n=1,ci=57,h=7,w=7,co=117,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = Conv2dImplicitGemmTemplate();
  const ConfigSpace space = t.Space(w, kAvx512);
  const Config c = Pick(space, {{"tile_x", {4, 1, 2, 16}},
                                {"tile_y", {1, 1, 7, 8}},
                                {"tile_k", {19, 9, 3}},
                                {"vec", {16}},
                                {"auto_unroll_max_step", {64}},
                                {"local_b", {1}}});
  ASSERT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  const std::string options = t.BuildOptions(w, space, c);
  for (const char* expected : {"-D CO=117", "-D TX2=2", "-D TX3=16", "-D TY3=8", "-D TK0=19", "-D TK1=9", "-D TK2=3",
                               "-D VEC=16", "-D UNROLL_K=1", "-D LOCAL_B=1"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
  const LaunchGeometry g = t.Geometry(w, space, c);
  EXPECT_EQ(g.global, (std::array<size_t, 3>{7, 8, 1}));  // N groups x TY2, M groups x TX2
  EXPECT_EQ(g.local, (std::array<size_t, 3>{7, 2, 1}));
  EXPECT_DOUBLE_EQ(t.Flops(w), 2.0 * 117 * 49 * 57 * 9);
}

}  // namespace
}  // namespace tt
