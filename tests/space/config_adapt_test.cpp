#include "space/config_adapt.h"

#include <gtest/gtest.h>

#include "space/knob_schema.h"
#include "space/match_score.h"

namespace tt {
namespace {

ConfigSpace GemmLike(int64_t m, int64_t n, int64_t k) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", m, 4));
  space.AddKnob(Knob::Split("tile_y", n, 4));
  space.AddKnob(Knob::Split("tile_k", k, 3));
  space.AddKnob(Knob::Discrete("unroll", {0, 16, 64, 512}));
  space.AddKnob(Knob::Categorical("local_a", {0, 1}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Value(c, "tile_x")[2] * s.Value(c, "tile_y")[2] > 64) return "work group too large";
    return std::nullopt;
  });
  return space;
}

TEST(ConfigKey, ParsesWithoutASpaceAndRejectsMalformedKeys) {
  const auto values = ParseConfigKey("tile_x=[1,4,8,16];vec=4;u=-1");
  ASSERT_TRUE(values);
  ASSERT_EQ(values->size(), 3u);
  EXPECT_EQ((*values)[0], (std::pair<std::string, KnobValue>{"tile_x", {1, 4, 8, 16}}));
  EXPECT_EQ(*FindKnobValue(*values, "vec"), KnobValue{4});
  EXPECT_EQ(*FindKnobValue(*values, "u"), KnobValue{-1});
  EXPECT_EQ(FindKnobValue(*values, "nope"), nullptr);
  for (const char* bad : {"x", "=4", "x=", "x=[1,,2]", "x=4;", "x=[1,2", "x=4a"})
    EXPECT_FALSE(ParseConfigKey(bad)) << bad;
  EXPECT_TRUE(ParseConfigKey("")->empty());
}

TEST(ConfigKey, ReadsWhatConfigSpaceWrites) {
  const ConfigSpace space = GemmLike(64, 32, 16);
  Rng rng(3);
  for (int i = 0; i < 50; ++i) {
    const Config c = space.Random(rng);
    const auto values = ParseConfigKey(space.Key(c));
    ASSERT_TRUE(values);
    for (size_t k = 0; k < space.num_knobs(); ++k)
      EXPECT_EQ(*FindKnobValue(*values, space.knob(k).name()), space.knob(k).value(c[k]));
  }
}

TEST(AdaptSplit, KeepsFactorsThatDivideAndShrinksTheRest) {
  EXPECT_EQ(AdaptSplit({4, 2, 8, 4}, 256), (KnobValue{4, 2, 8, 4}));
  EXPECT_EQ(AdaptSplit({4, 2, 8, 4}, 96), (KnobValue{3, 1, 8, 4}));  // innermost first: 4 | 96, 8 | 24, 1 | 3
  EXPECT_EQ(AdaptSplit({1, 1, 16, 4}, 7), (KnobValue{1, 1, 7, 1}));  // a prime extent
  EXPECT_EQ(AdaptSplit({2, 3}, 12), (KnobValue{4, 3}));
  for (int64_t extent : {1, 7, 96, 100, 224, 1000}) {
    const KnobValue v = AdaptSplit({3, 5, 8, 2}, extent);
    int64_t product = 1;
    for (int64_t f : v) product *= f;
    EXPECT_EQ(product, extent);
  }
}

TEST(AdaptConfig, MapsARecordedConfigOntoAnotherWorkload) {
  const ConfigSpace old_space = GemmLike(256, 256, 64);
  const ConfigSpace new_space = GemmLike(96, 256, 48);
  const auto recorded = ParseConfigKey("tile_x=[4,2,8,4];tile_y=[8,2,4,4];tile_k=[4,4,4];unroll=64;local_a=1");
  ASSERT_TRUE(recorded && old_space.FromKey("tile_x=[4,2,8,4];tile_y=[8,2,4,4];tile_k=[4,4,4];unroll=64;local_a=1"));
  const auto adapted = AdaptConfig(new_space, *recorded);
  ASSERT_TRUE(adapted);
  EXPECT_EQ(adapted->why_invalid, std::nullopt);
  EXPECT_EQ(new_space.Key(adapted->config), "tile_x=[3,1,8,4];tile_y=[8,2,4,4];tile_k=[3,4,4];unroll=64;local_a=1");
}

TEST(AdaptConfig, ReportsConstraintsAndRefusesAnotherSchema) {
  const ConfigSpace space = GemmLike(64, 64, 16);
  const auto too_wide =
      AdaptConfig(space, *ParseConfigKey("tile_x=[1,1,16,4];tile_y=[1,1,16,4];tile_k=[1,4,4];unroll=0;local_a=0"));
  ASSERT_TRUE(too_wide);
  EXPECT_EQ(too_wide->why_invalid, "work group too large");
  EXPECT_FALSE(AdaptConfig(space, *ParseConfigKey("tile_x=[1,1,16,4];tile_k=[1,4,4];unroll=0;local_a=0")));
  EXPECT_FALSE(
      AdaptConfig(space, *ParseConfigKey("tile_x=[1,16,4];tile_y=[1,1,16,4];tile_k=[1,4,4];unroll=0;local_a=0")));
  // A discrete value the new space lacks becomes the nearest one.
  const auto nearest =
      AdaptConfig(space, *ParseConfigKey("tile_x=[1,1,4,16];tile_y=[1,1,4,16];tile_k=[1,4,4];unroll=50;local_a=1"));
  ASSERT_TRUE(nearest);
  EXPECT_EQ(space.Scalar(nearest->config, "unroll"), 64);
}

TEST(NearestValidConfig, ChangesOneKnobOfAnInvalidConfigAndKeepsAValidOne) {
  const ConfigSpace space = GemmLike(64, 64, 16);
  const auto too_wide =
      AdaptConfig(space, *ParseConfigKey("tile_x=[1,1,16,4];tile_y=[1,1,16,4];tile_k=[1,4,4];unroll=64;local_a=1"));
  ASSERT_TRUE(too_wide && too_wide->why_invalid);
  const auto repaired = NearestValidConfig(space, too_wide->config);
  ASSERT_TRUE(repaired);
  EXPECT_TRUE(space.IsValid(*repaired));
  int changed = 0;
  for (size_t k = 0; k < space.num_knobs(); ++k) changed += (*repaired)[k] != too_wide->config[k];
  EXPECT_EQ(changed, 1);
  // The knobs after the tiles are kept; the tiles' work-group is what shrank.
  EXPECT_EQ(space.Scalar(*repaired, "unroll"), 64);
  EXPECT_EQ(space.Scalar(*repaired, "local_a"), 1);
  EXPECT_LE(space.Value(*repaired, "tile_x")[2] * space.Value(*repaired, "tile_y")[2], 64);
  const auto valid =
      AdaptConfig(space, *ParseConfigKey("tile_x=[1,1,4,16];tile_y=[1,1,4,16];tile_k=[1,4,4];unroll=0;local_a=0"));
  EXPECT_EQ(NearestValidConfig(space, valid->config), valid->config);
}

TEST(KnobSchema, DependsOnKnobsNotOnExtents) {
  EXPECT_EQ(KnobSchema(GemmLike(64, 64, 16)), KnobSchema(GemmLike(1024, 96, 7)));
  EXPECT_EQ(KnobSchema(GemmLike(64, 64, 16)).size(), 16u);
  ConfigSpace other;
  other.AddKnob(Knob::Split("tile_x", 64, 3));
  EXPECT_NE(KnobSchema(other), KnobSchema(GemmLike(64, 64, 16)));
}

TEST(MatchScore, IsOneForEqualExtentsAndFallsWithFewerCommonFactors) {
  const SplitExtents a = SplitExtentsOf(GemmLike(64, 64, 16));
  EXPECT_EQ(a, (SplitExtents{{"tile_x", 64}, {"tile_y", 64}, {"tile_k", 16}}));
  EXPECT_DOUBLE_EQ(MatchScore(a, a), 1.0);
  // 64 has 7 divisors; with 32: 6 common; with 48: 5 (1,2,4,8,16).
  EXPECT_DOUBLE_EQ(MatchScore(a, {{"tile_x", 32}, {"tile_y", 64}, {"tile_k", 16}}), (6.0 / 7 + 1 + 1) / 3);
  EXPECT_DOUBLE_EQ(MatchScore(a, {{"tile_x", 48}, {"tile_y", 64}, {"tile_k", 16}}), (5.0 / 7 + 1 + 1) / 3);
  EXPECT_DOUBLE_EQ(MatchScore(a, {{"other", 64}}), 0.0);
  EXPECT_LT(MatchScore(a, SplitExtentsOf(GemmLike(7, 7, 7))), 0.2);
}

// 1023 = 3 x 11 x 31 shares only the divisor 1 with 1024, but a space whose split also
// factors 1023 rounded up to 1024 holds 1024's tiles as they are.
TEST(MatchScore, RecordedExtentsThatATailSplitFactorsMatchWhole) {
  ConfigSpace odd;
  odd.AddKnob(Knob::SplitWithTail("tile_x", 1023, 3, {1024}));
  odd.AddKnob(Knob::Split("tile_k", 16, 2));
  const TargetExtents target = TargetExtentsOf(odd);
  EXPECT_EQ(target.exact, (SplitExtents{{"tile_x", 1023}, {"tile_k", 16}}));
  EXPECT_EQ(target.tails, (SplitExtents{{"tile_x", 1024}}));

  const SplitExtents round = {{"tile_x", 1024}, {"tile_k", 16}};
  EXPECT_DOUBLE_EQ(MatchScore(round, target.exact), (1.0 / 11 + 1) / 2);  // eq. 1 alone
  EXPECT_DOUBLE_EQ(MatchScore(round, target), 1.0);
  EXPECT_DOUBLE_EQ(MatchScore({{"tile_x", 512}, {"tile_k", 16}}, target), (1.0 / 10 + 1) / 2);  // not a tail extent
  ASSERT_TRUE(odd.knob(0).Find({4, 16, 16}));  // 1024's tiles as they are
}

TEST(MatchScore, UtilisationAndMetricFollowEquationsTwoAndThree) {
  const auto recorded = *ParseConfigKey("tile_x=[4,1,4,4];tile_y=[2,1,8,4]");  // tiles 16 and 32
  EXPECT_DOUBLE_EQ(Utilisation(recorded, {{"tile_x", 64}, {"tile_y", 64}}), 1.0);
  EXPECT_DOUBLE_EQ(Utilisation(recorded, {{"tile_x", 8}, {"tile_y", 64}}), 0.5);         // 8 <= 16
  EXPECT_DOUBLE_EQ(Utilisation(recorded, {{"tile_x", 24}, {"tile_y", 64}}), 24.0 / 32);  // two tiles of 16
  EXPECT_DOUBLE_EQ(FilterMetric(100, 0.5, 0.5), 12.5);
  EXPECT_DOUBLE_EQ(FilterMetric(100, 1, 0.5, 1), 50);
}

}  // namespace
}  // namespace tt
