#include "tuners/gga_tuner.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

size_t Differences(const Config& a, const Config& b) {
  size_t n = 0;
  for (size_t k = 0; k < a.size(); ++k) n += a[k] != b[k];
  return n;
}

std::vector<Observation> Measure(const ConfigSpace& space, const std::vector<Config>& batch) {
  std::vector<Observation> measured;
  for (const Config& c : batch) measured.push_back(testing::SyntheticMeasure(space, c));
  return measured;
}

TEST(GgaTuner, FirstPopulationIsTheWarmStartCandidatesInOrder) {
  const ConfigSpace space = testing::LargeSpace();
  Rng rng(5);
  std::vector<Config> candidates;
  while (candidates.size() < 6) {
    Config c = space.Random(rng);
    if (space.IsValid(c)) candidates.push_back(c);
  }
  WarmStart warm_start;
  for (size_t i = 0; i < candidates.size(); ++i) warm_start.candidates.push_back({candidates[i], 10.0 - i});
  GgaTuner tuner(space, 1, {.pop_size = 4, .elite_num = 2});
  tuner.Seed({testing::SyntheticMeasure(space, candidates[1])});  // measured already: skipped
  tuner.Prime(warm_start);
  EXPECT_EQ(tuner.NextBatch(10), (std::vector<Config>{candidates[0], candidates[2], candidates[3], candidates[4]}));
}

// No random mutation: once a generation is measured, every child changes one gene of a parent.
TEST(GgaTuner, ChildrenChangeOneGeneOfAParent) {
  const ConfigSpace space = testing::LargeSpace();
  GgaTuner tuner(space, 7);
  std::vector<Config> measured_so_far = tuner.NextBatch(16);
  ASSERT_EQ(measured_so_far.size(), 16u);
  tuner.Update(Measure(space, measured_so_far));
  for (int generation = 0; generation < 5; ++generation) {
    const auto children = tuner.NextBatch(16);
    ASSERT_EQ(children.size(), 16u);
    for (const Config& child : children) {
      const bool one_gene = std::any_of(measured_so_far.begin(), measured_so_far.end(),
                                        [&](const Config& p) { return Differences(p, child) == 1; });
      EXPECT_TRUE(one_gene) << space.Key(child);
    }
    tuner.Update(Measure(space, children));
    measured_so_far.insert(measured_so_far.end(), children.begin(), children.end());
  }
}

TEST(GgaTuner, ReachesThePeakFasterThanRandom) {
  EXPECT_LT(testing::MedianTrialsToPeakOptimum("gga"), testing::MedianTrialsToPeakOptimum("random"));
}

TEST(GgaTuner, RejectsBadOptions) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  EXPECT_THROW(GgaTuner(space, 1, {.pop_size = 0}), UserError);
  EXPECT_THROW(GgaTuner(space, 1, {.pop_size = 4, .elite_num = 5}), UserError);
  EXPECT_THROW(GgaTuner(space, 1, {.crossover_prob = 1.5}), UserError);
  EXPECT_THROW(MakeTuner("gga", space, 1, {{"pop_size", "x"}}), UserError);
  EXPECT_THROW(MakeTuner("gga", space, 1, {{"q", "1"}}), UserError);
  EXPECT_NO_THROW(MakeTuner("gga", space, 1, {{"pop_size", "8"}, {"elite_num", "4"}, {"crossover_prob", "1"}}));
}

}  // namespace
}  // namespace tt
