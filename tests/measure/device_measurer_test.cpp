#include "measure/device_measurer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "core/errors.h"
#include "measure/opencl_measurer.h"

namespace tt {
namespace {

TEST(FakeDeviceSpec, ReadsTheLatencyInMilliseconds) {
  EXPECT_EQ(ParseFakeDeviceSpec("fake"), 0.0);
  EXPECT_DOUBLE_EQ(*ParseFakeDeviceSpec("fake:250"), 0.25);
  EXPECT_DOUBLE_EQ(*ParseFakeDeviceSpec("fake:0.5"), 0.0005);
  EXPECT_EQ(ParseFakeDeviceSpec("0"), std::nullopt);
  EXPECT_EQ(ParseFakeDeviceSpec("fakeish"), std::nullopt);
  for (const char* bad : {"fake:", "fake:-1", "fake:abc", "fake:5ms", "fake:nan", "fake:1e9"})
    EXPECT_THROW(ParseFakeDeviceSpec(bad), UserError) << bad;
}

ConfigSpace TwoKnobs() {
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("a", {1, 2, 3, 4}));
  space.AddKnob(Knob::Discrete("b", {1, 2}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Scalar(c, "a") == 4) return "a must stay below 4";
    return std::nullopt;
  });
  return space;
}

TEST(FakeDevice, TakesItsLatencyPerValidConfigAndAnswersTheSameEachTime) {
  const auto measurer = MakeLocalMeasurer({.device_spec = "fake:30"});
  EXPECT_EQ(measurer->device().name, "fake (simulated measurer)");
  const ConfigSpace space = TwoKnobs();
  const MeasureTask task{nullptr, Workload::FromKey("fake:n=1"), &space};
  const auto start = std::chrono::steady_clock::now();
  const MeasuredBatch first = measurer->Measure(task, {{0, 0}, {3, 1}, {2, 1}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(first.complete());
  ASSERT_EQ(first.results.size(), 3u);
  EXPECT_TRUE(first.results[0].ok());
  EXPECT_EQ(first.results[1].status, MeasureStatus::kInvalidConfig);
  EXPECT_GE(seconds, 0.06);  // two valid configs; the invalid one is never "run"
  EXPECT_DOUBLE_EQ(first.results[0].wall_s, 0.03);
  EXPECT_EQ(measurer->Measure(task, {{2, 1}}).results[0].gflops, first.results[2].gflops);
}

TEST(FakeDevice, AStopEndsTheBatchWithoutAResultForTheConfigInFlight) {
  const auto measurer = MakeLocalMeasurer({.device_spec = "fake:60000"});
  const ConfigSpace space = TwoKnobs();
  const MeasureTask task{nullptr, Workload::FromKey("fake:n=1"), &space};
  std::atomic<bool> stop{true};
  const MeasuredBatch measured = measurer->Measure(task, {{0, 0}, {1, 0}}, &stop);
  EXPECT_EQ(measured.end, MeasuredBatch::End::kStopped);
  EXPECT_TRUE(measured.results.empty());
}

TEST(DeviceMeasurerFactory, ReplacesWhatTheCommandsGet) {
  int made = 0;
  SetDeviceMeasurerFactory([&](const OpenClMeasurerOptions& options) {
    ++made;
    return MakeLocalMeasurer({.device_spec = "fake"});
  });
  const auto measurer = MakeDeviceMeasurer({.device_spec = "no such device"});
  SetDeviceMeasurerFactory({});
  EXPECT_EQ(made, 1);
  EXPECT_EQ(measurer->device().name, "fake (simulated measurer)");
  EXPECT_EQ(measurer->parallelism(), 1);
}

}  // namespace
}  // namespace tt
