#include "tuners/unseen_configs.h"

#include <gtest/gtest.h>

#include <set>

#include "tuners/fitness.h"
#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

TEST(UnseenConfigs, DrawsEveryValidConfigOnceThenReportsExhaustion) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  UnseenConfigs unseen(space);
  Rng rng(1);
  std::set<Config> drawn;
  while (auto config = unseen.Random(rng)) {
    EXPECT_TRUE(unseen.IsFresh(*config));
    EXPECT_TRUE(drawn.insert(*config).second);
    unseen.MarkSeen(*config);
    EXPECT_TRUE(unseen.Seen(*config));
    EXPECT_FALSE(unseen.IsFresh(*config));
  }
  const auto valid = testing::AllValid(space);
  EXPECT_EQ(drawn, std::set<Config>(valid.begin(), valid.end()));
  EXPECT_EQ(unseen.num_seen(), valid.size());
  EXPECT_FALSE(unseen.Random(rng));
}

// Two million points with ten valid ones: rejection sampling alone would likely miss them, the
// enumeration of spaces below kEnumerableSize finds each.
TEST(UnseenConfigs, FindsRareValidConfigsInEnumerableSpaces) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("a", 1024, 2));  // 11 values
  space.AddKnob(Knob::Split("b", 4096, 4));  // 455
  space.AddKnob(Knob::Categorical("c", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  space.AddKnob(Knob::Discrete("d", {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  space.AddKnob(Knob::Categorical("e", {0, 1, 2, 3}));
  ASSERT_LT(space.Size(), UnseenConfigs::kEnumerableSize);
  ASSERT_GT(space.Size(), 1000000u);
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (c[0] == 5 && c[1] == 50 && c[2] == 7 && c[4] == 1) return std::nullopt;
    return "rare";
  });
  UnseenConfigs unseen(space);
  Rng rng(8);
  std::set<uint32_t> found;
  while (auto config = unseen.Random(rng)) {
    unseen.MarkSeen(*config);
    found.insert((*config)[3]);
  }
  EXPECT_EQ(found.size(), 10u);
}

TEST(UnseenConfigs, LargeSpaceGivesUpWhenNothingIsValid) {
  ConfigSpace space = testing::LargeSpace();
  space.AddConstraint([](const ConfigSpace&, const Config&) -> std::optional<std::string> { return "never"; });
  UnseenConfigs unseen(space);
  Rng rng(2);
  EXPECT_FALSE(unseen.Random(rng));
}

TEST(UnseenConfigs, SameSeedSameDraws) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  UnseenConfigs a(space), b(space);
  Rng ra(5), rb(5);
  for (int i = 0; i < 150; ++i) {
    const auto x = a.Random(ra), y = b.Random(rb);
    ASSERT_EQ(x, y);
    if (!x) break;
    a.MarkSeen(*x);
    b.MarkSeen(*y);
  }
}

TEST(UnseenConfigs, ConfigsOutsideTheSpaceAreIgnored) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  UnseenConfigs unseen(space);
  unseen.MarkSeen(Config{0, 0});
  unseen.MarkSeen(Config{15, 0, 0});
  EXPECT_EQ(unseen.num_seen(), 0u);
  EXPECT_FALSE(unseen.IsFresh(Config{15, 0, 0}));
  EXPECT_FALSE(InSpace(space, Config{0, 0, 3}));
  EXPECT_TRUE(InSpace(space, Config{14, 3, 2}));
}

TEST(PickByFitness, ProportionalToFitnessAndUniformWhenAllZero) {
  Rng rng(3);
  std::vector<int> counts(3);
  for (int i = 0; i < 30000; ++i) counts[PickByFitness({1, 0, 3}, rng)]++;
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / 30000.0, 0.25, 0.02);
  std::vector<int> uniform(4);
  for (int i = 0; i < 40000; ++i) uniform[PickByFitness({0, 0, 0, 0}, rng)]++;
  for (int c : uniform) EXPECT_NEAR(c / 40000.0, 0.25, 0.02);
}

TEST(Fitness, FailuresHaveZeroFitness) {
  EXPECT_EQ(Fitness({{}, MeasureStatus::kOk, 12.5}), 12.5);
  EXPECT_EQ(Fitness({{}, MeasureStatus::kTimeout, 12.5}), 0);
  EXPECT_EQ(Fitness({{}, MeasureStatus::kInvalidConfig, 0}), 0);
}

}  // namespace
}  // namespace tt
