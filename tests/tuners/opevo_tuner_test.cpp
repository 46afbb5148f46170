#include "tuners/opevo_tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "tuners/random_tuner.h"
#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

using testing::Median;
using testing::MedianTrialsToPeakOptimum;
using testing::PeakGflops;
using testing::PeakOptimum;
using testing::PeakSpace;
using testing::TrialsToOptimum;

TEST(OpEvoTuner, FindsTheOptimumInFarFewerTrialsThanRandom) {
  const ConfigSpace space = PeakSpace();
  ASSERT_DOUBLE_EQ(PeakGflops(space, PeakOptimum(space)), 100);
  const size_t opevo = MedianTrialsToPeakOptimum("opevo"), random = MedianTrialsToPeakOptimum("random");
  RecordProperty("opevo_median_trials", std::to_string(opevo));
  RecordProperty("random_median_trials", std::to_string(random));
  EXPECT_LE(opevo * 2, random) << "opevo median " << opevo << ", random median " << random;
}

// Seeds lambda parents: `best` with fitness, the rest failed. Every child is then a q-random
// walk away from `best`; returns the mean fraction of knobs a child keeps from it.
double MeanKeptFromBest(double q) {
  const ConfigSpace space = PeakSpace();
  const Config best = *space.FromKey("tile_a=[1,16,1];tile_b=[8,1,1];tile_c=[4,1];unroll=16;axis=2");
  Rng rng(17);
  std::vector<Observation> history{{best, MeasureStatus::kOk, 50}};
  while (history.size() < 8) history.push_back({space.Random(rng), MeasureStatus::kWrongAnswer, 0});
  double kept = 0;
  size_t children = 0;
  // One batch per tuner: later batches of the same parents would be pushed further away, since
  // the configs near `best` are used up.
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    OpEvoTuner tuner(space, seed, {.parents = 8, .offspring = 8, .q = q});
    tuner.Seed(history);
    for (const Config& child : tuner.NextBatch(8)) {
      for (size_t k = 0; k < child.size(); ++k) kept += child[k] == best[k];
      children += 1;
    }
  }
  EXPECT_EQ(children, 200u);
  return kept / (children * space.num_knobs());
}

TEST(OpEvoTuner, ChildrenInheritFromFitParentsOnlyAndQSetsHowFarTheyWalk) {
  const double near = MeanKeptFromBest(0.2);
  const double far = MeanKeptFromBest(0.8);
  // Failed parents have fitness 0 and pass nothing on: each knob keeps best's value with
  // probability at least 1 - q, less re-mutations of seen children. A random config would keep
  // about a fifth, and a child of all eight parents alike well under a half.
  EXPECT_GT(near, 0.6);
  EXPECT_LT(far, near - 0.2);
}

// Mutation applies to every child, not only to those recombination makes stale: with two equally
// fit parents differing in every knob, a child would otherwise be a knob-wise mix of them.
TEST(OpEvoTuner, EveryChildIsMutated) {
  const ConfigSpace space = PeakSpace();
  const Config a = *space.FromKey("tile_a=[1,16,1];tile_b=[8,1,1];tile_c=[4,1];unroll=16;axis=2");
  const Config b = *space.FromKey("tile_a=[4,1,4];tile_b=[1,1,8];tile_c=[1,4];unroll=1;axis=0");
  int mixes = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    OpEvoTuner tuner(space, seed, {.parents = 2, .offspring = 8, .q = 0.7});
    tuner.Seed({{a, MeasureStatus::kOk, 10}, {b, MeasureStatus::kOk, 10}});
    for (const Config& child : tuner.NextBatch(8)) {
      bool mix = true;
      for (size_t k = 0; k < child.size(); ++k) mix &= child[k] == a[k] || child[k] == b[k];
      mixes += mix;
    }
  }
  // A knob stays on its parent's value with probability well under 1 at q = 0.7; all five rarely.
  EXPECT_LT(mixes, 40) << "of 160 children";
}

// Only the best lambda observed are parents: 992 mediocre configs must not outvote 8 good ones.
TEST(OpEvoTuner, PopulationIsCappedAtTheBestLambda) {
  const ConfigSpace space = PeakSpace();
  const size_t axis = space.KnobIndex("axis");
  Rng rng(4);
  std::vector<Observation> history;
  while (history.size() < 1000) {
    Config c = space.Random(rng);
    const bool good = history.size() % 125 == 0;
    c[axis] = good ? 0 : 1 + rng.Below(2);
    history.push_back({c, MeasureStatus::kOk, good ? 10.0 : 1.0});
  }
  OpEvoTuner tuner(space, 6, {.parents = 8, .offspring = 8, .q = 0.05});
  tuner.Seed(history);
  int from_good = 0;
  for (int round = 0; round < 10; ++round) {
    const auto children = tuner.NextBatch(8);
    ASSERT_EQ(children.size(), 8u);
    for (const Config& child : children) from_good += child[axis] == 0;
  }
  EXPECT_GE(from_good, 70);  // of 80; with all 1000 as parents about 80 * 80 / 1072 = 6
}

TEST(OpEvoTuner, StartsWithLambdaRandomConfigsThenRhoChildren) {
  const ConfigSpace space = PeakSpace();
  OpEvoTuner tuner(space, 1, {.parents = 5, .offspring = 3, .q = 0.5});
  EXPECT_EQ(tuner.NextBatch(100).size(), 5u);
  EXPECT_EQ(tuner.NextBatch(100).size(), 3u);
  EXPECT_EQ(tuner.NextBatch(2).size(), 2u);
}

TEST(OpEvoTuner, RejectsBadOptions) {
  const ConfigSpace space = PeakSpace();
  for (double q : {0.0, 1.0, -0.5, 1.5, std::nan("")}) EXPECT_THROW(OpEvoTuner(space, 1, {.q = q}), UserError) << q;
  EXPECT_THROW(OpEvoTuner(space, 1, {.parents = 0}), UserError);
  EXPECT_THROW(OpEvoTuner(space, 1, {.offspring = 0}), UserError);
  for (const TunerOptionMap& bad : std::vector<TunerOptionMap>{{{"q", "1"}},
                                                               {{"q", "0"}},
                                                               {{"q", "abc"}},
                                                               {{"q", "0.5x"}},
                                                               {{"q", "inf"}},
                                                               {{"lambda", "-3"}},
                                                               {{"lambda", "0"}},
                                                               {{"rho", "2.5"}},
                                                               {{"mutation_rate", "0.5"}}})
    EXPECT_THROW(MakeTuner("opevo", space, 1, bad), UserError) << bad.begin()->first << "=" << bad.begin()->second;
  EXPECT_NO_THROW(MakeTuner("opevo", space, 1, {{"q", "0.3"}, {"lambda", "16"}, {"rho", "4"}}));
  try {
    MakeTuner("opevo", space, 1, {{"mutation_rate", "0.5"}});
    ADD_FAILURE() << "no exception";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("mutation_rate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tt
