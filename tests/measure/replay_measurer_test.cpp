// Tier: unit (no device, no program started; the folder's other tests are not)
#include "measure/replay_measurer.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

TEST(ReplayMeasurer, AnswersRecordedResultsAndRefusesTheRest) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile", 8, 2));
  space.AddKnob(Knob::Discrete("unroll", {1, 2}));
  const Config fast{1, 0}, broken{2, 1}, unknown{0, 0};
  ReplayMeasurer replay(
      {{space.Key(fast), MeasureResult::Success({0.002, 0.001, 0.003}, 2e9, 0.5)},
       {space.Key(broken), MeasureResult::Failure(MeasureStatus::kWrongAnswer, "C[3] = 1, expected 2")}});
  const auto results = replay.Measure({nullptr, {}, &space}, {fast, broken, unknown}).results;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(results[0].gflops, 1000.0);  // 2e9 FLOP in the 2 ms median
  EXPECT_EQ(results[1].status, MeasureStatus::kWrongAnswer);
  // Unrecorded is answered as a real run answers a config that does not build.
  EXPECT_EQ(results[2].status, MeasureStatus::kCompileError);
  EXPECT_EQ(results[2].error, ReplayMeasurer::kNotRecorded);
}

}  // namespace
}  // namespace tt
