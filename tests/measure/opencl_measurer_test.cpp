#include "measure/opencl_measurer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ops/selftest_template.h"

namespace tt {
namespace {

// The timing worker builds (no builders) unless a test asks for builders.
OpenClMeasurerOptions TestOptions(double timeout_s = 20, int builders = 0) {
  OpenClMeasurerOptions options;
  options.worker_path = TENSORTUNE_WORKER_BIN;
  options.timeout_s = timeout_s;
  options.builders = builders;
  options.min_time_s = 0.005;
  options.max_repeats = 20;
  return options;
}

// The selftest template on a small workload; each config picks one behaviour.
class SelftestMeasure : public ::testing::Test {
 protected:
  const KernelTemplate& kernel = SelftestFaultsTemplate();
  const Workload workload = Workload::FromKey("selftest:n=4096");
  ConfigSpace space = kernel.Space(workload, {});

  Config With(SelftestBehaviour b) const { return {*space.knob(0).Find({static_cast<int64_t>(b)})}; }
  MeasureTask Task() const { return {&kernel, workload, &space}; }
};

TEST_F(SelftestMeasure, OkConfigIsVerifiedAndTimed) {
  OpenClMeasurer measurer(TestOptions());
  EXPECT_FALSE(measurer.device().name.empty());
  EXPECT_GT(measurer.limits().max_work_group_size, 0u);
  EXPECT_GT(measurer.limits().local_mem_bytes, 0u);
  const auto results = measurer.Measure(Task(), {With(SelftestBehaviour::kOk)}).results;
  ASSERT_EQ(results.size(), 1u);
  const MeasureResult& r = results[0];
  ASSERT_TRUE(r.ok()) << ToString(r.status) << ": " << r.error;
  EXPECT_FALSE(r.times_s.empty());
  EXPECT_LE(r.times_s.size(), 20u);
  for (double t : r.times_s) EXPECT_GT(t, 0);
  EXPECT_GT(r.time_s, 0);
  EXPECT_GT(r.gflops, 0);
  EXPECT_GT(r.compile_s, 0);
  EXPECT_TRUE(r.error.empty());
}

TEST_F(SelftestMeasure, SegfaultCostsOneTrialAndTheBatchGoesOn) {
  OpenClMeasurer measurer(TestOptions());
  const auto results =
      measurer.Measure(Task(), {With(SelftestBehaviour::kSegfault), With(SelftestBehaviour::kOk)}).results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeError);
  EXPECT_NE(results[0].error.find("worker crashed (signal 11"), std::string::npos) << results[0].error;
  EXPECT_FALSE(results[0].transient);  // the config's own fault: never measured again
  EXPECT_TRUE(results[1].ok()) << ToString(results[1].status) << ": " << results[1].error;
}

TEST_F(SelftestMeasure, HangTimesOutAndTheBatchGoesOn) {
  OpenClMeasurer measurer(TestOptions(/*timeout_s=*/3));
  // The first ok config fills POCL's kernel cache, so that the same config built by the
  // restarted worker fits in the short timeout even on a slow machine.
  const Config ok = With(SelftestBehaviour::kOk);
  ASSERT_TRUE(measurer.Measure(Task(), {ok}).results[0].ok());
  const auto results = measurer.Measure(Task(), {With(SelftestBehaviour::kHang), ok}).results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kTimeout) << results[0].error;
  EXPECT_NE(results[0].error.find("the worker was killed"), std::string::npos) << results[0].error;
  EXPECT_TRUE(results[0].transient);  // a loaded machine may explain it: a later run may retry
  EXPECT_TRUE(results[1].ok()) << ToString(results[1].status) << ": " << results[1].error;
}

// The worker processes this process has started (children of any of its threads).
std::vector<pid_t> ChildProcesses() {
  std::vector<pid_t> children;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "children");
    for (pid_t pid; in >> pid;) children.push_back(pid);
  }
  return children;
}

TEST_F(SelftestMeasure, StopAbandonsTheConfigInFlightAndKeepsTheFinishedOnes) {
  std::atomic<bool> stop{false};
  OpenClMeasurerOptions options = TestOptions(/*timeout_s=*/120);  // a guard: the stop ends the hang
  options.on_sent = [&](size_t index, bool) {
    if (index == 1) stop = true;  // Ctrl-C while the hang is being timed
  };
  OpenClMeasurer measurer(options);
  const MeasuredBatch batch = measurer.Measure(
      Task(), {With(SelftestBehaviour::kOk), With(SelftestBehaviour::kHang), With(SelftestBehaviour::kOk)}, &stop);
  EXPECT_EQ(batch.end, MeasuredBatch::End::kStopped);
  ASSERT_EQ(batch.results.size(), 1u);  // the hang in flight is abandoned, not recorded as a timeout
  EXPECT_TRUE(batch.results[0].ok()) << batch.results[0].error;
  stop = false;  // the measurer goes on with a fresh worker
  EXPECT_TRUE(measurer.Measure(Task(), {With(SelftestBehaviour::kOk)}, &stop).results.at(0).ok());
}

TEST_F(SelftestMeasure, WorkerKilledFromOutsideIsATransientFailure) {
  OpenClMeasurerOptions options = TestOptions(/*timeout_s=*/120);  // a guard: the kill ends the hang
  options.on_sent = [](size_t, bool) {
    for (pid_t pid : ChildProcesses()) kill(pid, SIGKILL);  // the timing worker, the hang sent to it
  };
  OpenClMeasurer measurer(options);
  const auto results = measurer.Measure(Task(), {With(SelftestBehaviour::kHang)}).results;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeError) << results[0].error;
  EXPECT_NE(results[0].error.find("signal 9"), std::string::npos) << results[0].error;
  EXPECT_TRUE(results[0].transient);  // says nothing about the config: a later run measures it again
}

TEST_F(SelftestMeasure, WorkerGoneMidRunEndsTheBatchKeepingWhatWasMeasured) {
  const auto dir = std::filesystem::temp_directory_path() / ("tt-worker-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto worker = dir / "tensortune-worker";
  std::filesystem::copy_file(TENSORTUNE_WORKER_BIN, worker, std::filesystem::copy_options::overwrite_existing);
  OpenClMeasurerOptions options = TestOptions();
  options.worker_path = worker.string();
  OpenClMeasurer measurer(options);
  std::filesystem::remove_all(dir);  // the running worker lives on; a restart cannot happen
  const MeasuredBatch batch =
      measurer.Measure(Task(), {With(SelftestBehaviour::kSegfault), With(SelftestBehaviour::kOk)});
  EXPECT_EQ(batch.end, MeasuredBatch::End::kBrokenEnvironment);
  ASSERT_EQ(batch.results.size(), 1u);
  EXPECT_EQ(batch.results[0].status, MeasureStatus::kRuntimeError);
  EXPECT_NE(batch.error.find("tensortune-worker"), std::string::npos) << batch.error;
}

// Builders start with --builder (they leave a CPU driver's threads unpinned: ocl/driver_threads.h),
// the timing worker without it.
TEST_F(SelftestMeasure, BuildersAndTheTimingWorkerStartInTheirRoles) {
  const auto dir = std::filesystem::temp_directory_path() / ("tt-roles-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto wrapper = dir / "worker.sh", log = dir / "args.log";
  std::ofstream(wrapper) << "#!/bin/sh\necho \"$*\" >> '" << log.string() << "'\nexec '" << TENSORTUNE_WORKER_BIN
                         << "' \"$@\"\n";
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  OpenClMeasurerOptions options = TestOptions(20, 1);
  options.worker_path = wrapper.string();
  {
    OpenClMeasurer measurer(options);
    const auto results = measurer.Measure(Task(), {With(SelftestBehaviour::kOk)}).results;
    ASSERT_EQ(results.size(), 1u);
    EXPECT_TRUE(results[0].ok()) << results[0].error;
  }
  std::ifstream in(log);
  std::vector<std::string> starts;
  for (std::string line; std::getline(in, line);) starts.push_back(line);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0], "--device 0");  // the timing worker, first
  EXPECT_EQ(starts[1], "--device 0 --builder");
}

TEST_F(SelftestMeasure, WrongAnswerAndCompileErrorAreStatuses) {
  OpenClMeasurer measurer(TestOptions());
  const auto results =
      measurer.Measure(Task(), {With(SelftestBehaviour::kWrongAnswer), With(SelftestBehaviour::kCompileError)}).results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kWrongAnswer) << results[0].error;
  EXPECT_NE(results[0].error.find("output["), std::string::npos) << results[0].error;
  EXPECT_TRUE(results[0].times_s.empty());
  EXPECT_EQ(results[1].status, MeasureStatus::kCompileError) << results[1].error;
  EXPECT_NE(results[1].error.find("this_identifier_is_not_declared"), std::string::npos) << results[1].error;
}

TEST_F(SelftestMeasure, InvalidConfigNeverReachesTheWorker) {
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Scalar(c, "behaviour") == static_cast<int64_t>(SelftestBehaviour::kHang)) return "no hanging here";
    return std::nullopt;
  });
  OpenClMeasurerOptions options = TestOptions(/*timeout_s=*/3);
  int sent = 0;
  options.on_sent = [&](size_t, bool) { ++sent; };
  OpenClMeasurer measurer(options);
  const auto results = measurer.Measure(Task(), {With(SelftestBehaviour::kHang)}).results;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kInvalidConfig);
  EXPECT_EQ(results[0].error, "no hanging here");
  EXPECT_EQ(sent, 0);
}

// Building ahead: the valid configs of a batch are built by builder processes, then timed
// one by one by the timing worker.
TEST_F(SelftestMeasure, BuildersShareABatchAndTheTimingWorkerTimesEveryConfig) {
  OpenClMeasurer measurer(TestOptions(20, /*builders=*/2));
  const Config ok = With(SelftestBehaviour::kOk);
  const auto batch = measurer.Measure(Task(), {ok, With(SelftestBehaviour::kWrongAnswer), ok, ok});
  ASSERT_TRUE(batch.complete());
  ASSERT_EQ(batch.results.size(), 4u);
  EXPECT_EQ(batch.results[1].status, MeasureStatus::kWrongAnswer);  // verified by the timing worker
  for (size_t i : {0, 2, 3}) {
    const MeasureResult& r = batch.results[i];
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_GT(r.compile_s, 0);  // the builder's build, and the timing worker's cached one
    EXPECT_GT(r.timed_s, 0);
    EXPECT_GT(r.wall_s, 0);
  }
  const std::vector<int64_t> builds = measurer.BuildsPerBuilder();
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_EQ(builds[0] + builds[1], 4);
  EXPECT_GT(builds[0], 0);  // both processes built: the work was shared
  EXPECT_GT(builds[1], 0);
}

TEST_F(SelftestMeasure, ACrashingBuilderCostsOneTrialAndIsReplaced) {
  OpenClMeasurer measurer(TestOptions(20, /*builders=*/2));
  const Config ok = With(SelftestBehaviour::kOk);
  const auto batch =
      measurer.Measure(Task(), {With(SelftestBehaviour::kSegfault), ok, With(SelftestBehaviour::kCompileError)});
  ASSERT_TRUE(batch.complete());
  ASSERT_EQ(batch.results.size(), 3u);
  EXPECT_EQ(batch.results[0].status, MeasureStatus::kRuntimeError);
  EXPECT_NE(batch.results[0].error.find("worker crashed (signal 11"), std::string::npos) << batch.results[0].error;
  EXPECT_FALSE(batch.results[0].transient);  // the config's own fault
  EXPECT_TRUE(batch.results[1].ok()) << batch.results[1].error;
  EXPECT_EQ(batch.results[2].status, MeasureStatus::kCompileError);
  // The next batch gets both builders again.
  const auto next = measurer.Measure(Task(), {ok, ok});
  ASSERT_EQ(next.results.size(), 2u);
  EXPECT_TRUE(next.results[0].ok() && next.results[1].ok());
  EXPECT_EQ(measurer.BuildsPerBuilder().size(), 2u);
}

TEST_F(SelftestMeasure, AHangingBuildTimesOutAsTransient) {
  OpenClMeasurer measurer(TestOptions(/*timeout_s=*/3, /*builders=*/1));
  const auto batch = measurer.Measure(Task(), {With(SelftestBehaviour::kHang), With(SelftestBehaviour::kOk)});
  ASSERT_EQ(batch.results.size(), 2u);
  EXPECT_EQ(batch.results[0].status, MeasureStatus::kTimeout);
  EXPECT_NE(batch.results[0].error.find("builder was killed"), std::string::npos) << batch.results[0].error;
  EXPECT_TRUE(batch.results[0].transient);
  EXPECT_TRUE(batch.results[1].ok()) << batch.results[1].error;
}

TEST_F(SelftestMeasure, AStopDuringTheBuildsRecordsNothingHalfDone) {
  std::atomic<bool> stop{false};
  OpenClMeasurerOptions options = TestOptions(/*timeout_s=*/120, /*builders=*/2);  // a guard: the stop ends the hang
  options.on_sent = [&](size_t index, bool building) {
    if (building && index == 1) stop = true;  // Ctrl-C while the hang is being built
  };
  OpenClMeasurer measurer(options);
  const MeasuredBatch batch =
      measurer.Measure(Task(), {With(SelftestBehaviour::kOk), With(SelftestBehaviour::kHang)}, &stop);
  EXPECT_EQ(batch.end, MeasuredBatch::End::kStopped);
  EXPECT_TRUE(batch.results.empty());  // nothing was timed before the stop: nothing to keep
  stop = false;
  EXPECT_TRUE(measurer.Measure(Task(), {With(SelftestBehaviour::kOk)}, &stop).results.at(0).ok());
}

// A config built ahead whose launches are far slower than the task's best is cut at
// TimingTimeoutS, long before --timeout, as a final result.
TEST_F(SelftestMeasure, AConfigFarSlowerThanTheBestIsCutShort) {
  OpenClMeasurer measurer(TestOptions(/*timeout_s=*/120, /*builders=*/1));
  MeasureTask task = Task();
  task.best_time_s = 1e-5;
  const auto batch = measurer.Measure(task, {With(SelftestBehaviour::kSlow), With(SelftestBehaviour::kOk)});
  ASSERT_EQ(batch.results.size(), 2u);
  const MeasureResult& slow = batch.results[0];
  EXPECT_EQ(slow.status, MeasureStatus::kTimeout);
  EXPECT_NE(slow.error.find("slower than the task's best"), std::string::npos) << slow.error;
  EXPECT_FALSE(slow.transient);  // hopeless, not hanging: never measured again
  EXPECT_TRUE(batch.results[1].ok()) << batch.results[1].error;
}

TEST(BuildTimeout, FollowsTheTasksMedianBuildWithinAFloorAndTheTimeout) {
  EXPECT_DOUBLE_EQ(BuildTimeoutS(10, {}), 10);  // nothing built yet: the whole timeout
  const double quick = BuildTimeoutS(10, {0.1, 0.2, 9}), slow = BuildTimeoutS(10, {2, 2.5, 3});
  EXPECT_LT(quick, 10);
  EXPECT_GT(quick, 0.2 * 4);  // the floor
  EXPECT_LT(quick, slow);
  EXPECT_DOUBLE_EQ(BuildTimeoutS(10, {5, 6, 7}), 10);
  // The median of core/statistics.h: of an even count, the mean of the middle two.
  EXPECT_DOUBLE_EQ(BuildTimeoutS(100, {1, 3, 2, 4}), 4 * 2.5);
}

// Both builders hang on the first configs of a batch: the next round replaces them, and the
// rest of the batch is still built ahead rather than by the timing worker.
TEST_F(SelftestMeasure, BuildersThatHangAreReplacedWithinTheBatch) {
  OpenClMeasurer measurer(TestOptions(/*timeout_s=*/3, /*builders=*/2));
  const Config hang = With(SelftestBehaviour::kHang), ok = With(SelftestBehaviour::kOk);
  const auto batch = measurer.Measure(Task(), {hang, hang, ok, ok});
  ASSERT_EQ(batch.results.size(), 4u);
  for (size_t i : {0, 1}) EXPECT_NE(batch.results[i].error.find("builder was killed"), std::string::npos);
  for (size_t i : {2, 3}) EXPECT_TRUE(batch.results[i].ok()) << batch.results[i].error;
  const auto builds = measurer.BuildsPerBuilder();
  EXPECT_EQ(builds[0] + builds[1], 2);  // the two ok configs, by the replacements
}

TEST(TimingTimeout, FollowsTheBestTimeAndNeverExceedsTheTimeout) {
  EXPECT_DOUBLE_EQ(TimingTimeoutS(10, 0), 10);  // no best yet: the whole timeout
  const double fast = TimingTimeoutS(10, 1e-3), slow = TimingTimeoutS(10, 1e-2);
  EXPECT_LT(fast, slow);
  EXPECT_GT(fast, 3 * kHopelessFactor * 1e-3);  // room for a few launches at the hopeless factor
  EXPECT_DOUBLE_EQ(TimingTimeoutS(10, 1), 10);
}

TEST(OpenClMeasurer, UnknownDeviceIsAUserError) {
  OpenClMeasurerOptions options = TestOptions();
  options.device_spec = "no-such-device-xyz";
  try {
    OpenClMeasurer measurer(options);
    FAIL() << "opened a device that does not exist";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device 'no-such-device-xyz'"), std::string::npos) << e.what();
  }
}

TEST(OpenClMeasurer, MissingWorkerIsAnEnvironmentError) {
  OpenClMeasurerOptions options = TestOptions();
  options.worker_path = (std::filesystem::temp_directory_path() / "no-such-dir" / "tensortune-worker").string();
  EXPECT_THROW(OpenClMeasurer measurer(options), EnvironmentError);
}

TEST(OpenClMeasurer, DefaultWorkerPathIsNextToTheProgramUnlessOverridden) {
  unsetenv("TENSORTUNE_WORKER");
  const std::filesystem::path path = DefaultWorkerPath();
  EXPECT_EQ(path.filename(), "tensortune-worker");
  EXPECT_EQ(path.parent_path(), std::filesystem::read_symlink("/proc/self/exe").parent_path());
  setenv("TENSORTUNE_WORKER", "custom-worker", 1);
  EXPECT_EQ(DefaultWorkerPath(), "custom-worker");
  unsetenv("TENSORTUNE_WORKER");
}

// A real template end to end: 2-D geometry, three buffers, the Eigen reference.
TEST(OpenClMeasurer, MeasuresAValidGemmConfig) {
  const KernelTemplate* gemm = FindTemplate("gemm_tiled");
  ASSERT_NE(gemm, nullptr);
  OpenClMeasurer measurer(TestOptions());
  const Workload workload = Workload::FromKey("gemm:m=64,n=32,k=48");
  const ConfigSpace space = gemm->Space(workload, measurer.limits());
  Rng rng(7);
  Config config = space.Random(rng);
  while (!space.IsValid(config)) config = space.Random(rng);
  const MeasureResult r = measurer.Measure({gemm, workload, &space}, {config}).results[0];
  EXPECT_TRUE(r.ok()) << ToString(r.status) << ": " << r.error;
}

}  // namespace
}  // namespace tt
