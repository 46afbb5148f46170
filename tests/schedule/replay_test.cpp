// Tuners replayed on a recorded space (schedule/replay.h), the engine of `tensortune compare`.
#include "schedule/replay.h"

#include <gtest/gtest.h>

#include <cmath>

#include "measure/fake_measurer.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

ReplayRun RunOf(std::vector<double> best_so_far, double tuner_seconds = 0) {
  ReplayRun run;
  run.best_so_far = std::move(best_so_far);
  run.tuner_seconds = tuner_seconds;
  return run;
}

TEST(Replay, KeepsTheBestSoFarAfterEveryTrialOfTheBudget) {
  const KernelTemplate& gemm = *FindTemplate("gemm_tiled");
  auto task = testing::MakeTask(gemm, Workload::FromKey("gemm:m=16,n=16,k=16"));
  FakeMeasurer fake{testing::IndexGflops};
  const ReplayRun run = Replay(*task, fake, 20, 4);
  ASSERT_EQ(run.best_so_far.size(), 20u);
  EXPECT_TRUE(std::is_sorted(run.best_so_far.begin(), run.best_so_far.end()));
  EXPECT_GT(run.best_so_far.back(), 0);
  EXPECT_DOUBLE_EQ(run.best_so_far.back(), task->best()->gflops);
  EXPECT_GE(run.tuner_seconds, 0);
}

TEST(Replay, BestAtAndTrialsToReachReadTheRun) {
  const ReplayRun run = RunOf({1, 1, 3, 5});
  EXPECT_DOUBLE_EQ(BestAt(run, 1), 1);
  EXPECT_DOUBLE_EQ(BestAt(run, 3), 3);
  EXPECT_DOUBLE_EQ(BestAt(run, 10), 5);  // past the end: its last
  EXPECT_DOUBLE_EQ(BestAt(RunOf({}), 3), 0);
  EXPECT_DOUBLE_EQ(TrialsToReach(run, 3), 3);
  EXPECT_DOUBLE_EQ(TrialsToReach(run, 0.5), 1);
  EXPECT_TRUE(std::isinf(TrialsToReach(run, 6)));
}

TEST(Replay, SummaryGivesQuartilesAtCheckpointsAndTrialsToTargets) {
  // Best recorded 10 GFLOPS; three seeds.
  const std::vector<ReplayRun> runs = {RunOf({2, 5, 10, 10}, 0.004), RunOf({4, 4, 6, 9}, 0.008),
                                       RunOf({1, 8, 8, 8}, 0.012)};
  const ReplaySummary s = SummarizeReplays(runs, 10, {1, 4}, {0.8, 1.0});
  ASSERT_EQ(s.percent_at.size(), 2u);
  EXPECT_DOUBLE_EQ(s.percent_at[0].median, 20);  // 20, 40, 10 %
  EXPECT_DOUBLE_EQ(s.percent_at[0].q1, 15);
  EXPECT_DOUBLE_EQ(s.percent_at[0].q3, 30);
  EXPECT_DOUBLE_EQ(s.percent_at[1].median, 90);  // 100, 90, 80 %
  ASSERT_EQ(s.to_target.size(), 2u);
  EXPECT_DOUBLE_EQ(s.to_target[0].median_trials, 3);  // 8 GFLOPS after 3, 4 and 2 trials
  EXPECT_EQ(s.to_target[0].runs_that_reached, 3);
  EXPECT_TRUE(std::isinf(s.to_target[1].median_trials));  // only one seed reached 10
  EXPECT_EQ(s.to_target[1].runs_that_reached, 1);
  EXPECT_DOUBLE_EQ(s.overhead_ms_per_trial, 2);  // 4, 8, 12 ms over 4 trials each: 1, 2, 3
}

}  // namespace
}  // namespace tt
