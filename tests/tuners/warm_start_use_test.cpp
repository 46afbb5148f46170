// Tier: unit
// Every tuner either uses a warm start (Prime) or says it cannot (UsesWarmStart): records of
// another device that ranks configs almost alike (its best config one knob away from this
// device's) change what a tuner that uses them proposes, and bring it to the optimum in no
// more trials than a cold start; a tuner that cannot use them proposes exactly what it would
// cold. Deterministic: fixed seeds.
#include <gtest/gtest.h>

#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"
#include "tuners/warm_configs.h"

namespace tt {
namespace {

using testing::PeakGflops;
using testing::PeakOptimum;
using testing::PeakSpace;

// The other device: faster, and its best axis is 0 (here the peak is at axis 1).
double OtherDeviceGflops(const ConfigSpace& space, const Config& c) {
  return 1.5 * PeakGflops(space, c) * (space.Scalar(c, "axis") == 1 ? 0.4 : 1.0);
}

WarmStart OtherDeviceRecords(const ConfigSpace& space) {
  WarmStart warm;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config c = space.FromIndex(i);
    warm.transfer.push_back({*ParseConfigKey(space.Key(c)), {}, OtherDeviceGflops(space, c), 0.5, 0});
  }
  return warm;
}

constexpr size_t kMaxTrials = 200;

// Trials to measure the optimum (kMaxTrials + 1: not within kMaxTrials), and the first 16
// proposals.
std::pair<size_t, std::vector<Config>> Tune(const std::string& name, uint64_t seed, const WarmStart* warm) {
  const ConfigSpace space = PeakSpace();
  auto tuner = MakeTuner(name, space, seed, WithBudget(name, {}, kMaxTrials));
  if (warm) tuner->Prime(*warm);
  std::vector<Config> first;
  size_t trials = 0;
  while (trials < kMaxTrials) {
    const auto batch = tuner->NextBatch(8);
    if (batch.empty()) break;
    std::vector<Observation> measured;
    for (const Config& c : batch) {
      if (first.size() < 16) first.push_back(c);
      ++trials;
      if (c == PeakOptimum(space)) return {trials, first};
      measured.push_back({c, MeasureStatus::kOk, PeakGflops(space, c)});
    }
    tuner->Update(measured);
  }
  return {kMaxTrials + 1, first};
}

TEST(WarmStartUse, EveryTunerUsesTheRecordsOrSaysItCannot) {
  const ConfigSpace space = PeakSpace();
  const WarmStart warm = OtherDeviceRecords(space);
  for (const std::string& name : TunerNames()) {
    const bool uses = MakeTuner(name, space, 1, {})->UsesWarmStart();
    std::vector<size_t> cold_trials, warm_trials;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const auto cold = Tune(name, seed, nullptr);
      const auto primed = Tune(name, seed, &warm);
      cold_trials.push_back(cold.first);
      warm_trials.push_back(primed.first);
      if (uses) {
        EXPECT_NE(cold.second, primed.second) << name << " seed " << seed;
      } else {
        EXPECT_EQ(cold.second, primed.second) << name << " seed " << seed;
      }
    }
    if (uses) {
      EXPECT_LE(testing::Median(warm_trials), testing::Median(cold_trials)) << name;
    }
  }
  // The two that cannot: a uniform draw and an enumeration have nothing to start from.
  EXPECT_FALSE(MakeTuner("random", space, 1, {})->UsesWarmStart());
  EXPECT_FALSE(MakeTuner("grid", space, 1, {})->UsesWarmStart());
}

// The configs a warm start hands the evolutionary tuners: the other device's best first, by
// throughput against that device's best, distinct and valid.
TEST(WarmStartUse, BestWarmConfigsRanksRecordsBySourceBest) {
  const ConfigSpace space = PeakSpace();
  WarmStart warm = OtherDeviceRecords(space);
  const std::vector<Config> best = BestWarmConfigs(space, warm, 5);
  ASSERT_EQ(best.size(), 5u);
  EXPECT_EQ(space.Key(best[0]), "tile_a=[2,4,2];tile_b=[2,2,2];tile_c=[2,2];unroll=4;axis=0");
  for (size_t i = 1; i < best.size(); ++i)
    EXPECT_GE(OtherDeviceGflops(space, best[i - 1]), OtherDeviceGflops(space, best[i]));
  // A candidate (already adapted, ranked by the warm start) comes before every record.
  warm.candidates.push_back({PeakOptimum(space), 1.0});
  EXPECT_EQ(BestWarmConfigs(space, warm, 2).front(), PeakOptimum(space));
  EXPECT_EQ(BestWarmConfigs(space, warm, 2).size(), 2u);
  const std::vector<double> relative = RelativeToSourceBest(warm);
  EXPECT_DOUBLE_EQ(*std::max_element(relative.begin(), relative.end()), 1.0);
}

}  // namespace
}  // namespace tt
