// The contract every tuner keeps, whatever its search strategy (docs/architecture.md, tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/rng.h"
#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

using testing::AllValid;
using testing::Drive;
using testing::LargeSpace;
using testing::SmallConstrainedSpace;
using testing::SyntheticMeasure;

class TunerContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Tuner> Make(const ConfigSpace& space, uint64_t seed) {
    return MakeTuner(GetParam(), space, seed, {});
  }
};

void ExpectValidAndDistinct(const ConfigSpace& space, const std::vector<Config>& proposed) {
  std::set<Config> distinct;
  for (const Config& c : proposed) {
    EXPECT_EQ(space.WhyInvalid(c), std::nullopt) << space.Key(c);
    EXPECT_TRUE(distinct.insert(c).second) << "proposed twice: " << space.Key(c);
  }
}

TEST_P(TunerContract, ProposesOnlyValidConfigsAndNeverRepeats) {
  const ConfigSpace space = LargeSpace();
  auto tuner = Make(space, 11);
  const auto proposed = Drive(*tuner, space, 16, 600);
  EXPECT_EQ(proposed.size(), 600u);
  ExpectValidAndDistinct(space, proposed);
}

TEST_P(TunerContract, NeverProposesSeededHistory) {
  const ConfigSpace space = LargeSpace();
  Rng rng(99);
  std::vector<Observation> history;
  std::set<Config> seeded;
  // Random points of the space, invalid ones included, as a database would hold them.
  for (int i = 0; i < 300; ++i) {
    Config c = space.Random(rng);
    history.push_back(space.IsValid(c) ? SyntheticMeasure(space, c) : Observation{c, MeasureStatus::kInvalidConfig, 0});
    seeded.insert(c);
  }
  // Grid walks in index order: seed the very first valid configs too so it has to skip them.
  for (uint64_t i = 0; seeded.size() < 350; ++i)
    if (space.IsValid(space.FromIndex(i)) && seeded.insert(space.FromIndex(i)).second)
      history.push_back(SyntheticMeasure(space, space.FromIndex(i)));

  auto tuner = Make(space, 5);
  tuner->Seed(history);
  const auto proposed = Drive(*tuner, space, 10, 500);
  EXPECT_EQ(proposed.size(), 500u);
  ExpectValidAndDistinct(space, proposed);
  for (const Config& c : proposed) EXPECT_FALSE(seeded.count(c)) << "seeded config proposed: " << space.Key(c);
}

TEST_P(TunerContract, SameSeedSameSequence) {
  const ConfigSpace space = LargeSpace();
  auto a = Make(space, 42);
  auto b = Make(space, 42);
  EXPECT_EQ(Drive(*a, space, 8, 300), Drive(*b, space, 8, 300));
}

// Every stochastic tuner follows its seed; grid walks the space in index order whatever it.
TEST_P(TunerContract, SeedDecidesTheSequenceExceptForGrid) {
  const ConfigSpace space = LargeSpace();
  auto a = Make(space, 1);
  auto b = Make(space, 2);
  if (GetParam() == "grid")
    EXPECT_EQ(Drive(*a, space, 8, 50), Drive(*b, space, 8, 50));
  else
    EXPECT_NE(Drive(*a, space, 8, 50), Drive(*b, space, 8, 50));
}

// Stops (empty batch) exactly when no valid unseen config is left, having proposed each once.
void ExpectExhaustsExactly(Tuner& tuner, const ConfigSpace& space, const std::set<Config>& seeded, bool feed_back) {
  std::vector<Config> expected;
  for (const Config& c : AllValid(space))
    if (!seeded.count(c)) expected.push_back(c);
  ASSERT_LT(expected.size(), space.Size()) << "the test space should have invalid points";

  auto proposed = Drive(tuner, space, 7, space.Size() + 10, feed_back);
  ExpectValidAndDistinct(space, proposed);
  std::sort(proposed.begin(), proposed.end());
  EXPECT_EQ(proposed, expected);
  EXPECT_TRUE(tuner.NextBatch(5).empty());
  EXPECT_TRUE(tuner.NextBatch(1).empty());
}

TEST_P(TunerContract, StopsExactlyWhenSmallConstrainedSpaceIsExhausted) {
  const ConfigSpace space = SmallConstrainedSpace();
  auto tuner = Make(space, 3);
  ExpectExhaustsExactly(*tuner, space, {}, /*feed_back=*/true);
}

TEST_P(TunerContract, ExhaustsWhatSeededHistoryLeaves) {
  const ConfigSpace space = SmallConstrainedSpace();
  const auto valid = AllValid(space);
  std::vector<Observation> history;
  std::set<Config> seeded;
  for (size_t i = 0; i < valid.size(); i += 3) {
    history.push_back(SyntheticMeasure(space, valid[i]));
    seeded.insert(valid[i]);
  }
  auto tuner = Make(space, 4);
  tuner->Seed(history);
  ExpectExhaustsExactly(*tuner, space, seeded, /*feed_back=*/true);
}

TEST_P(TunerContract, KeepsProposingWithoutFeedback) {
  const ConfigSpace space = SmallConstrainedSpace();
  auto tuner = Make(space, 8);
  ExpectExhaustsExactly(*tuner, space, {}, /*feed_back=*/false);
}

// History may arrive after a tuner has planned ahead; what it planned must still be checked.
TEST_P(TunerContract, HistorySeededLateIsNeverProposed) {
  const ConfigSpace space = SmallConstrainedSpace();
  auto tuner = Make(space, 9);
  const auto first = tuner->NextBatch(1);
  ASSERT_EQ(first.size(), 1u);
  const auto valid = AllValid(space);
  std::vector<Observation> history;
  std::set<Config> left;
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i] == first[0]) continue;
    if (i % 40 == 0)
      left.insert(valid[i]);
    else
      history.push_back(SyntheticMeasure(space, valid[i]));
  }
  tuner->Seed(history);
  auto rest = Drive(*tuner, space, 4, space.Size());
  EXPECT_EQ(std::set<Config>(rest.begin(), rest.end()), left);
  EXPECT_EQ(rest.size(), left.size());
}

// Test names allow letters, digits and '_' only: "xgb-tl" runs as xgb_tl.
INSTANTIATE_TEST_SUITE_P(AllTuners, TunerContract, ::testing::ValuesIn(TunerNames()), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

}  // namespace
}  // namespace tt
