// What the genetic tuners (ga, gga) share in tuners/fitness.h: scoring what was measured and
// proposing a bred generation batch by batch, kept in one place so that they cannot drift.
#include "tuners/fitness.h"

#include <gtest/gtest.h>

#include "tuners/ga_tuner.h"
#include "tuners/gga_tuner.h"
#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

TEST(GeneticShared, MeasuredConfigsOfTheSpaceAreScoredAndSeenOthersPassedOver) {
  const ConfigSpace space = testing::LargeSpace();
  UnseenConfigs unseen(space);
  std::vector<ScoredConfig> observed;
  const Config ok = space.FromIndex(3), failed = space.FromIndex(4);
  Config foreign = ok;
  foreign.push_back(0);  // one knob too many: another space's config
  ScoreMeasured(
      space,
      {{ok, MeasureStatus::kOk, 12.5}, {failed, MeasureStatus::kCompileError, 0}, {foreign, MeasureStatus::kOk, 9}},
      unseen, observed);
  ASSERT_EQ(observed.size(), 2u);
  EXPECT_DOUBLE_EQ(observed[0].fitness, 12.5);
  EXPECT_DOUBLE_EQ(observed[1].fitness, 0);
  EXPECT_TRUE(unseen.Seen(ok));
  EXPECT_TRUE(unseen.Seen(failed));
}

TEST(GeneticShared, BatchesTakeTheGenerationFromItsFront) {
  std::deque<Config> generation = {{1}, {2}, {3}};
  EXPECT_EQ(TakeBatch(generation, 2), (std::vector<Config>{{1}, {2}}));
  EXPECT_EQ(TakeBatch(generation, 5), (std::vector<Config>{{3}}));
  EXPECT_TRUE(TakeBatch(generation, 5).empty());
}

// ga and gga propose a first generation of pop_size in batches the same way.
TEST(GeneticShared, GaAndGgaHandOutAGenerationAlike) {
  const ConfigSpace space = testing::LargeSpace();
  GaTuner ga(space, 1, {.pop_size = 20, .elite_num = 2, .mutation_prob = 0.1});
  GgaTuner gga(space, 1, {.pop_size = 20});
  for (Tuner* tuner : {static_cast<Tuner*>(&ga), static_cast<Tuner*>(&gga)}) {
    EXPECT_EQ(tuner->NextBatch(15).size(), 15u);
    EXPECT_EQ(tuner->NextBatch(15).size(), 5u);
  }
}

}  // namespace
}  // namespace tt
