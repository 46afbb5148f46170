#include "space/knob.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tt {
namespace {

std::set<KnobValue> NeighbourValues(const Knob& knob, const KnobValue& value) {
  const auto index = knob.Find(value);
  EXPECT_TRUE(index) << "value not in knob " << knob.name();
  std::set<KnobValue> out;
  if (index)
    for (uint32_t n : knob.neighbours(*index)) out.insert(knob.value(n));
  return out;
}

bool IsPrime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// OpEvo section 3, literally: v is u with one prime z moved from position n to position m.
bool SplitAdjacentByDefinition(const KnobValue& u, const KnobValue& v) {
  for (size_t n = 0; n < u.size(); ++n)
    for (size_t m = 0; m < u.size(); ++m) {
      if (n == m || u[n] % v[n] != 0) continue;
      const int64_t z = u[n] / v[n];
      if (!IsPrime(z) || v[m] != u[m] * z) continue;
      bool rest_equal = true;
      for (size_t j = 0; j < u.size(); ++j) rest_equal &= j == n || j == m || u[j] == v[j];
      if (rest_equal) return true;
    }
  return false;
}

void ExpectSymmetricSimpleGraph(const Knob& knob) {
  for (uint32_t u = 0; u < knob.size(); ++u) {
    const auto& around = knob.neighbours(u);
    EXPECT_EQ(std::set<uint32_t>(around.begin(), around.end()).size(), around.size()) << "repeated neighbour";
    for (uint32_t v : around) {
      EXPECT_NE(u, v) << "self loop in " << knob.name();
      const auto& back = knob.neighbours(v);
      EXPECT_NE(std::find(back.begin(), back.end(), u), back.end())
          << knob.name() << ": " << u << " -> " << v << " but not back";
    }
  }
}

TEST(SplitKnob, EightIntoThreeMatchesOpEvoFigure1a) {
  const Knob knob = Knob::Split("tile", 8, 3);
  EXPECT_EQ(knob.size(), 10u);
  for (size_t i = 0; i < knob.size(); ++i) {
    const KnobValue& v = knob.value(i);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0] * v[1] * v[2], 8);
  }
  EXPECT_EQ(NeighbourValues(knob, {8, 1, 1}), (std::set<KnobValue>{{4, 2, 1}, {4, 1, 2}}));
  EXPECT_EQ(NeighbourValues(knob, {2, 2, 2}),
            (std::set<KnobValue>{{1, 4, 2}, {1, 2, 4}, {4, 1, 2}, {2, 1, 4}, {4, 2, 1}, {2, 4, 1}}));
  EXPECT_EQ(NeighbourValues(knob, {1, 1, 8}), (std::set<KnobValue>{{2, 1, 4}, {1, 2, 4}}));
}

TEST(SplitKnob, NonPowerOfTwoAndPrimeExtents) {
  const Knob twelve = Knob::Split("t", 12, 2);
  EXPECT_EQ(twelve.size(), 6u);
  EXPECT_EQ(NeighbourValues(twelve, {2, 6}), (std::set<KnobValue>{{1, 12}, {4, 3}, {6, 2}}));
  EXPECT_EQ(NeighbourValues(twelve, {1, 12}), (std::set<KnobValue>{{2, 6}, {3, 4}}));

  EXPECT_EQ(Knob::Split("t", 12, 3).size(), 18u);  // C(4,2) ways for 2^2 times C(3,2) for 3

  const Knob seven = Knob::Split("t", 7, 3);
  EXPECT_EQ(seven.size(), 3u);
  EXPECT_EQ(NeighbourValues(seven, {7, 1, 1}), (std::set<KnobValue>{{1, 7, 1}, {1, 1, 7}}));

  const Knob one = Knob::Split("t", 1, 3);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_TRUE(one.neighbours(0).empty());
}

TEST(SplitKnob, NeighboursAreExactlyThePaperAdjacency) {
  for (auto [extent, parts] : {std::pair{8, 3}, {12, 3}, {36, 3}, {30, 2}, {7, 3}, {48, 4}}) {
    const Knob knob = Knob::Split("t", extent, parts);
    for (uint32_t u = 0; u < knob.size(); ++u) {
      std::set<uint32_t> expected;
      for (uint32_t v = 0; v < knob.size(); ++v)
        if (SplitAdjacentByDefinition(knob.value(u), knob.value(v))) expected.insert(v);
      const auto& got = knob.neighbours(u);
      EXPECT_EQ(std::set<uint32_t>(got.begin(), got.end()), expected) << extent << " into " << parts;
    }
  }
}

// 13 rounded to 16: the exact splits of 13 plus those of 16 whose tile exceeds the 3 padded
// elements, i.e. whose first factor is ceil(13 / tile).
TEST(SplitWithTailKnob, AddsTheSplitsOfTheRoundedExtentWithAPartialLastTile) {
  const Knob knob = Knob::SplitWithTail("t", 13, 2, {16});
  std::set<KnobValue> values;
  for (size_t i = 0; i < knob.size(); ++i) values.insert(knob.value(i));
  EXPECT_EQ(values, (std::set<KnobValue>{{1, 13}, {13, 1}, {1, 16}, {2, 8}, {4, 4}}));
  EXPECT_EQ(knob.value(0), (KnobValue{1, 13}));  // value(0) still multiplies to the extent
  for (size_t i = 0; i < knob.size(); ++i) {
    const KnobValue& v = knob.value(i);
    EXPECT_EQ(v[0], (13 + v[1] - 1) / v[1]) << "first factor counts the tiles";
  }
  // {8, 2} would leave a whole tile past 13; the move towards it is no neighbour.
  EXPECT_EQ(NeighbourValues(knob, {4, 4}), (std::set<KnobValue>{{2, 8}}));
  EXPECT_TRUE(NeighbourValues(knob, {13, 1}).count({1, 13}));
  ExpectSymmetricSimpleGraph(knob);

  const Knob prime = Knob::SplitWithTail("t", 1021, 4, {1024});
  EXPECT_TRUE(prime.Find({16, 1, 4, 16}));
  EXPECT_TRUE(prime.Find({1021, 1, 1, 1}));
  EXPECT_FALSE(prime.Find({1024, 1, 1, 1}));
  EXPECT_FALSE(prime.Find({512, 1, 2, 1}));
  EXPECT_EQ(prime.size(), 4u + 286u - 1u - 3u);  // 1021's, 1024's (C(13,3)) but tiles of 1 and 2
  EXPECT_EQ(Knob::SplitWithTail("t", 64, 3, {}).size(), Knob::Split("t", 64, 3).size());
  EXPECT_THROW(Knob::SplitWithTail("t", 16, 2, {16}), std::invalid_argument);
}

TEST(PermutationKnob, ThreeItemsMatchOpEvoFigure1b) {
  const Knob knob = Knob::Permutation("order", 3);
  EXPECT_EQ(knob.size(), 6u);
  for (uint32_t u = 0; u < knob.size(); ++u) {
    EXPECT_EQ(knob.neighbours(u).size(), 3u);
    for (uint32_t v : knob.neighbours(u)) {
      int differences = 0;
      for (size_t i = 0; i < 3; ++i) differences += knob.value(u)[i] != knob.value(v)[i];
      EXPECT_EQ(differences, 2);
    }
  }
  EXPECT_EQ(NeighbourValues(knob, {0, 1, 2}), (std::set<KnobValue>{{1, 0, 2}, {2, 1, 0}, {0, 2, 1}}));
}

TEST(DiscreteKnob, EndsHaveOneNeighbourMiddleTwo) {
  const Knob knob = Knob::Discrete("unroll", {4, 1, 3, 2});  // sorted by the knob
  ASSERT_EQ(knob.size(), 4u);
  EXPECT_EQ(knob.value(0), KnobValue{1});
  EXPECT_EQ(NeighbourValues(knob, {1}), (std::set<KnobValue>{{2}}));
  EXPECT_EQ(NeighbourValues(knob, {2}), (std::set<KnobValue>{{1}, {3}}));
  EXPECT_EQ(NeighbourValues(knob, {3}), (std::set<KnobValue>{{2}, {4}}));
  EXPECT_EQ(NeighbourValues(knob, {4}), (std::set<KnobValue>{{3}}));
}

TEST(CategoricalKnob, SixChoicesAllAdjacent) {
  const Knob knob = Knob::Categorical("axis", {10, 11, 12, 13, 14, 15});
  for (uint32_t u = 0; u < knob.size(); ++u) EXPECT_EQ(knob.neighbours(u).size(), 5u);
}

TEST(Knob, NeighbourRelationIsSymmetricForEveryKind) {
  for (const Knob& knob :
       {Knob::Split("s", 8, 3), Knob::Split("s", 360, 3), Knob::Split("s", 64, 4), Knob::Permutation("p", 3),
        Knob::Permutation("p", 5), Knob::Discrete("d", {1, 2, 4, 8, 16}), Knob::Categorical("c", {0, 1, 2, 3, 4, 5})})
    ExpectSymmetricSimpleGraph(knob);
}

TEST(Knob, FindAndKindAndBadArguments) {
  const Knob knob = Knob::Split("tile", 8, 3);
  EXPECT_EQ(knob.kind(), KnobKind::kSplit);
  EXPECT_STREQ(ToString(KnobKind::kPermutation), "permutation");
  EXPECT_FALSE(knob.Find({3, 1, 1}));
  EXPECT_EQ(knob.value(*knob.Find({2, 2, 2})), (KnobValue{2, 2, 2}));
  EXPECT_THROW(Knob::Split("t", 0, 2), std::invalid_argument);
  EXPECT_THROW(Knob::Discrete("d", {}), std::invalid_argument);
  EXPECT_THROW(Knob::Categorical("c", {1, 1}), std::invalid_argument);
  EXPECT_THROW(Knob::Permutation("p", 9), std::invalid_argument);
}

}  // namespace
}  // namespace tt
