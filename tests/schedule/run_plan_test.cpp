// Tier: unit
#include "schedule/run_plan.h"

#include <gtest/gtest.h>

#include "ops/kernel_template.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

ConfigSpace GemmSpace() {
  return FindTemplate("gemm_tiled")->Space(ParseWorkload("gemm", "16,16,16", {}), testing::kLimits);
}

TaskTuneOptions Asked() {
  TaskTuneOptions o;
  o.tuner = "xgb";
  o.trials = 40;
  o.batch_size = 8;
  return o;
}

TEST(RunPlan, WithoutASweepTheTunerAndTrialsAskedForRun) {
  const RunPlan plan = PlanRun(Asked(), 0, GemmSpace());
  EXPECT_EQ(plan.tuner, "xgb");
  EXPECT_EQ(plan.trials, 40);
  EXPECT_FALSE(plan.covers_space);
}

TEST(RunPlan, ASweepCoversASmallSpaceInGridOrderAndSamplesALargeOne) {
  const ConfigSpace space = GemmSpace();
  const auto valid = CountValidConfigs(space, 1'000'000);
  ASSERT_TRUE(valid);
  ASSERT_GT(*valid, 2u);
  const RunPlan all = PlanRun(Asked(), static_cast<int64_t>(*valid), space);
  EXPECT_EQ(all.tuner, "grid");
  EXPECT_EQ(all.trials, static_cast<int64_t>(*valid));
  EXPECT_TRUE(all.covers_space);
  const RunPlan sample = PlanRun(Asked(), static_cast<int64_t>(*valid) - 1, space);
  EXPECT_EQ(sample.tuner, "random");
  EXPECT_EQ(sample.trials, static_cast<int64_t>(*valid) - 1);
  EXPECT_FALSE(sample.covers_space);
}

TEST(RunPlan, PlannedOptionsRecordASweepAndCountTheBatchPerRank) {
  const TaskTuneOptions tune = PlannedOptions(Asked(), {"xgb", 40, false}, 0, 1);
  EXPECT_EQ(tune.tuner, "xgb");
  EXPECT_EQ(tune.recorded_tuner, "");
  EXPECT_EQ(tune.batch_size, 8);
  const TaskTuneOptions sweep = PlannedOptions(Asked(), {"grid", 12, true}, 50, 3);
  EXPECT_EQ(sweep.tuner, "grid");
  EXPECT_EQ(sweep.trials, 12);
  EXPECT_EQ(sweep.recorded_tuner, "sweep-grid");
  EXPECT_EQ(sweep.batch_size, 24) << "8 per measuring rank, 3 ranks";
}

TEST(RunPlan, OtherDevicesPrimeATunerUnlessRefusedSweepingOrAuto) {
  const RunPlan xgb{"xgb", 40, false}, automatic{"auto", 40, false};
  EXPECT_TRUE(WantsOtherDevices({}, xgb, 0));
  EXPECT_TRUE(WantsOtherDevices({"auto"}, xgb, 0));
  EXPECT_TRUE(WantsOtherDevices({"gpu"}, xgb, 0));
  EXPECT_FALSE(WantsOtherDevices({"none"}, xgb, 0));
  EXPECT_FALSE(WantsOtherDevices({}, xgb, 100));
  EXPECT_FALSE(WantsOtherDevices({}, automatic, 0));
  EXPECT_FALSE(NamesDevices({}));
  EXPECT_FALSE(NamesDevices({"auto"}));
  EXPECT_FALSE(NamesDevices({"none"}));
  EXPECT_TRUE(NamesDevices({"gpu", "cpu"}));
}

}  // namespace
}  // namespace tt
