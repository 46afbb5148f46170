#include "measure/fake_measurer.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

TEST(FakeMeasurer, AnswersFromTheFormula) {
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("x", {1, 2, 3, 4}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Scalar(c, "x") == 4) return "x must stay below 4";
    return std::nullopt;
  });
  // x = 1 fails, the others run at x GFLOPS.
  FakeMeasurer measurer(
      [](const ConfigSpace& s, const Config& c) { return s.Scalar(c, "x") == 1 ? 0.0 : s.Scalar(c, "x"); });
  const MeasureTask task{nullptr, Workload::FromKey("fake:n=1"), &space};
  const auto results = measurer.Measure(task, {{0}, {1}, {2}, {3}}).results;
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeError);
  ASSERT_TRUE(results[1].ok());
  EXPECT_DOUBLE_EQ(results[1].gflops, 2);
  EXPECT_DOUBLE_EQ(results[1].time_s, 0.5);  // 1 GFLOP at 2 GFLOPS
  EXPECT_FALSE(results[1].times_s.empty());
  EXPECT_DOUBLE_EQ(results[2].gflops, 3);
  EXPECT_EQ(results[3].status, MeasureStatus::kInvalidConfig);
  EXPECT_EQ(results[3].error, "x must stay below 4");
  EXPECT_EQ(measurer.measured(), 3u);
  // Deterministic: the same config gives the same times.
  EXPECT_EQ(measurer.Measure(task, {{2}}).results[0].times_s, results[2].times_s);
}

}  // namespace
}  // namespace tt
