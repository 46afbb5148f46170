#include "tuners/gbfs_tuner.h"

#include <gtest/gtest.h>

#include <set>

#include "core/errors.h"
#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

using testing::MedianTrialsToPeakOptimum;
using testing::PeakSpace;

// Differs from `a` in exactly one knob, by one step of that knob's topology.
bool AreNeighbours(const ConfigSpace& space, const Config& a, const Config& b) {
  size_t differing = 0, knob = 0;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) ++differing, knob = k;
  if (differing != 1) return false;
  const auto& n = space.knob(knob).neighbours(a[knob]);
  return std::find(n.begin(), n.end(), b[knob]) != n.end();
}

TEST(GbfsTuner, StartsUntiledThenMeasuresRhoNeighboursOfTheBest) {
  const ConfigSpace space = PeakSpace();
  GbfsTuner tuner(space, 3, {.rho = 5});
  const auto first = tuner.NextBatch(8);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(space.Key(first[0]), "tile_a=[16,1,1];tile_b=[8,1,1];tile_c=[4,1];unroll=1;axis=0");
  tuner.Update({{first[0], MeasureStatus::kOk, 1}});
  const auto second = tuner.NextBatch(8);
  ASSERT_EQ(second.size(), 5u);
  for (const Config& c : second) EXPECT_TRUE(AreNeighbours(space, first[0], c)) << space.Key(c);
  // The best of those is expanded next, not the start.
  std::vector<Observation> measured;
  for (size_t i = 0; i < second.size(); ++i) measured.push_back({second[i], MeasureStatus::kOk, i == 2 ? 50.0 : 2.0});
  tuner.Update(measured);
  for (const Config& c : tuner.NextBatch(8)) EXPECT_TRUE(AreNeighbours(space, second[2], c)) << space.Key(c);
}

TEST(GbfsTuner, ARandomStartFollowsTheSeed) {
  const ConfigSpace space = PeakSpace();
  std::set<std::string> starts;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    auto tuner = MakeTuner("gbfs", space, seed, {{"random_start", "1"}});
    const auto first = tuner->NextBatch(8);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_TRUE(space.IsValid(first[0]));
    starts.insert(space.Key(first[0]));
    EXPECT_EQ(MakeTuner("gbfs", space, seed, {{"random_start", "1"}})->NextBatch(8), first);
  }
  EXPECT_GT(starts.size(), 4u);
}

TEST(GbfsTuner, ContinuesFromTheBestSeededConfig) {
  const ConfigSpace space = PeakSpace();
  const Config best = *space.FromKey("tile_a=[2,4,2];tile_b=[2,2,2];tile_c=[4,1];unroll=4;axis=1");
  const Config other = *space.FromKey("tile_a=[16,1,1];tile_b=[8,1,1];tile_c=[4,1];unroll=1;axis=0");
  GbfsTuner tuner(space, 1);
  tuner.Seed({{other, MeasureStatus::kOk, 1}, {best, MeasureStatus::kOk, 60}});
  const auto batch = tuner.NextBatch(8);
  ASSERT_EQ(batch.size(), 5u);
  for (const Config& c : batch) EXPECT_TRUE(AreNeighbours(space, best, c)) << space.Key(c);
}

// On a smooth single peak a greedy walk over the topology climbs straight up it.
TEST(GbfsTuner, FindsTheOptimumOfASmoothPeakMuchFasterThanRandom) {
  const size_t gbfs = MedianTrialsToPeakOptimum("gbfs"), random = MedianTrialsToPeakOptimum("random");
  RecordProperty("gbfs_median_trials", std::to_string(gbfs));
  RecordProperty("random_median_trials", std::to_string(random));
  EXPECT_LE(gbfs * 2, random) << "gbfs median " << gbfs << ", random " << random;
}

TEST(GbfsTuner, RejectsBadOptions) {
  const ConfigSpace space = PeakSpace();
  EXPECT_THROW(MakeTuner("gbfs", space, 1, {{"rho", "0"}}), UserError);
  EXPECT_THROW(MakeTuner("gbfs", space, 1, {{"lambda", "8"}}), UserError);
  EXPECT_THROW(MakeTuner("gbfs", space, 1, {{"random_start", "2"}}), UserError);
  EXPECT_NO_THROW(MakeTuner("gbfs", space, 1, {{"rho", "3"}}));
}

}  // namespace
}  // namespace tt
