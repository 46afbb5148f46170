#include "tuners/space_filling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "tuners/bo_tuner.h"

namespace tt {
namespace {

ConfigSpace Line(size_t values) {
  std::vector<int64_t> v(values);
  for (size_t i = 0; i < values; ++i) v[i] = static_cast<int64_t>(i);
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("x", v));
  return space;
}

TEST(SpaceFilling, ScalesEveryKnobToItsRange) {
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("a", {1, 2, 3, 4, 5}));
  space.AddKnob(Knob::Discrete("b", {8, 16, 32}));
  space.AddKnob(Knob::Discrete("one", {7}));
  EXPECT_DOUBLE_EQ(ScaledDistance(space, {0, 0, 0}, {4, 2, 0}), 2.0);
  EXPECT_DOUBLE_EQ(ScaledDistance(space, {0, 1, 0}, {2, 1, 0}), 0.25);
  EXPECT_DOUBLE_EQ(ScaledDistance(space, {3, 2, 0}, {3, 2, 0}), 0.0);
}

TEST(SpaceFilling, TakesTheCandidateFarthestFromItsNearestChosenConfig) {
  const ConfigSpace space = Line(11);
  const Config low{0}, high{10};
  const std::vector<Config> candidates{{1}, {9}, {6}, {4}};
  EXPECT_EQ(FarthestCandidate(space, candidates, {&low}), 1u);         // 9 is farthest from 0
  EXPECT_EQ(FarthestCandidate(space, candidates, {&low, &high}), 2u);  // 6 and 4 tie at 4 away; the first
  EXPECT_EQ(FarthestCandidate(space, candidates, {}), 0u);
}

// bo's random looks with spread: of 64 draws on a line of 101 values, the one farthest from
// the looks before; without it, a plain draw (the default keeps the replays as they were).
TEST(SpaceFilling, BosRandomLooksSpreadOverTheSpace) {
  const ConfigSpace space = Line(101);
  const auto looks = [&](size_t spread, uint64_t seed) {
    BoTuner tuner(space, seed, {.budget = 300, .init = 3, .centre = 0, .spread = spread});
    return tuner.NextBatch(3);
  };
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<Config> spread = looks(64, seed);
    ASSERT_EQ(spread.size(), 3u);
    std::vector<uint32_t> x{spread[0][0], spread[1][0], spread[2][0]};
    std::sort(x.begin(), x.end());
    EXPECT_GE(x[1] - x[0], 20u) << seed;  // three looks cover the line; random ones rarely do
    EXPECT_GE(x[2] - x[1], 20u) << seed;
    const std::vector<Config> plain = looks(0, seed), one = looks(1, seed);
    EXPECT_EQ(plain, one) << seed;
  }
}

}  // namespace
}  // namespace tt
