#include "core/measure_result.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

MeasureResult Recorded() {
  MeasureResult r = MeasureResult::Success({1.0, 1.0, 1.0}, 4e9, 0.5);  // 4 GFLOPS
  r.timed_s = 3;
  r.wall_s = 4;
  return r;
}

TEST(RetimedResult, NewRepeatsJoinTheRecordAndItsTimeIsTheirMedian) {
  MeasureResult again = MeasureResult::Success({2.0, 2.0, 2.0, 2.0}, 4e9, 0.1);
  again.timed_s = 8;
  again.wall_s = 9;
  const auto merged = RetimedResult(Recorded(), again);
  ASSERT_TRUE(merged);
  EXPECT_TRUE(merged->ok());
  EXPECT_EQ(merged->times_s.size(), 7u);
  EXPECT_DOUBLE_EQ(merged->time_s, 2.0);
  EXPECT_DOUBLE_EQ(merged->gflops, 2.0);     // the same FLOPs in twice the time
  EXPECT_DOUBLE_EQ(merged->compile_s, 0.5);  // built once
  EXPECT_DOUBLE_EQ(merged->timed_s, 11);     // the time split counts both
  EXPECT_DOUBLE_EQ(merged->wall_s, 13);
}

TEST(RetimedResult, AFailureOfTheConfigMakesTheRecordAFailureThatKeepsItsRepeats) {
  const auto merged = RetimedResult(Recorded(), MeasureResult::Failure(MeasureStatus::kWrongAnswer, "max error 3"));
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->status, MeasureStatus::kWrongAnswer);
  EXPECT_EQ(merged->error, "timed again after tuning: max error 3");
  EXPECT_EQ(merged->time_s, 0);
  EXPECT_EQ(merged->gflops, 0);
  EXPECT_EQ(merged->times_s.size(), 3u);
}

TEST(RetimedResult, AnEnvironmentFailureOrARecordThatFailedChangesNothing) {
  MeasureResult transient = MeasureResult::Failure(MeasureStatus::kTimeout, "loaded");
  transient.transient = true;
  EXPECT_FALSE(RetimedResult(Recorded(), transient));
  const MeasureResult failed = MeasureResult::Failure(MeasureStatus::kCompileError, "syntax");
  EXPECT_FALSE(RetimedResult(failed, MeasureResult::Success({1.0}, 1e9, 0)));
}

}  // namespace
}  // namespace tt
