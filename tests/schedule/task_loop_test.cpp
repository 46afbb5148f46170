#include "schedule/task_loop.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <set>
#include <thread>

#include "schedule/budget.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::Ensure;
using testing::MakeTask;
using testing::TempDir;

class TaskLoop : public ::testing::Test {
 protected:
  TempDir dir;
  std::unique_ptr<SqliteHistoryStore> store = SqliteHistoryStore::Open(dir.File("h.db"));
  const KernelTemplate& gemm = *FindTemplate("gemm_tiled");
  const Workload workload = Workload::FromKey("gemm:m=16,n=16,k=16");
  const TaskIds ids = Ensure(*store, gemm, workload);
  FakeMeasurer fake{testing::IndexGflops};

  RunRecorder Recorder() { return RunRecorder(*store, ids, RunInfo{"random", "", 1, "test", 0}); }
  std::set<std::string> Keys() {
    std::set<std::string> keys;
    for (const auto& t : store->Trials(ids)) keys.insert(t.config_key);
    return keys;
  }
};

TEST_F(TaskLoop, StopsAtTheTrialBudgetRecordingEveryBatch) {
  auto task = MakeTask(gemm, workload);
  RunRecorder recorder = Recorder();
  Budget budget(20);
  int batches = 0;
  const LoopEnd end =
      RunTaskLoop(*task, fake, budget, 8, &recorder, [&](const TuningTask&, const auto&, const auto&) { ++batches; });
  EXPECT_EQ(end.measured, 20);
  EXPECT_FALSE(end.exhausted);
  EXPECT_FALSE(end.interrupted);
  EXPECT_EQ(batches, 3);  // 8 + 8 + 4
  EXPECT_EQ(store->Trials(ids).size(), 20u);
  EXPECT_EQ(Keys().size(), 20u);
  ASSERT_TRUE(task->best());
  EXPECT_EQ(task->best()->config_key, store->Best(ids)->config_key);
}

TEST_F(TaskLoop, EndsWhenTheSpaceIsExhausted) {
  const KernelTemplate& selftest = SelftestFaultsTemplate();
  const Workload w = Workload::FromKey("selftest:n=64");
  auto task = MakeTask(selftest, w);
  Budget budget(100);
  const LoopEnd end = RunTaskLoop(*task, fake, budget, 2, nullptr);
  EXPECT_TRUE(end.exhausted);
  EXPECT_EQ(end.measured, 5);
  EXPECT_EQ(budget.used(), 5);
}

TEST_F(TaskLoop, ALaterRunSeededFromHistoryMeasuresNothingTwice) {
  for (int run = 0; run < 2; ++run) {
    auto task = MakeTask(gemm, workload, "opevo", /*seed=*/1);  // the same seed both times
    EXPECT_EQ(SeedFromHistory(*task, *store, ids), static_cast<size_t>(10 * run));
    RunRecorder recorder = Recorder();
    Budget budget(10);
    EXPECT_EQ(RunTaskLoop(*task, fake, budget, 4, &recorder).measured, 10);
  }
  EXPECT_EQ(store->Trials(ids).size(), 20u);
  EXPECT_EQ(Keys().size(), 20u);
}

TEST_F(TaskLoop, AStopKeepsTheFinishedConfigsOfTheBatchInFlight) {
  std::atomic<bool> interrupt{false};
  testing::FailingMeasurer measurer(11, MeasuredBatch::End::kStopped);
  auto task = MakeTask(gemm, workload);
  RunRecorder recorder = Recorder();
  Budget budget(40, 0, &interrupt);
  const LoopEnd end = RunTaskLoop(*task, measurer, budget, 8, &recorder);
  EXPECT_TRUE(end.interrupted);
  EXPECT_EQ(end.measured, 11);  // a whole batch of 8 and 3 of the next
  EXPECT_EQ(store->Trials(ids).size(), 11u);
  EXPECT_EQ(task->measured(), 11);
  recorder.End("interrupted");
  // The 5 configs never measured are not left claimed: another run may take them.
  auto other = MakeTask(gemm, workload);
  RunRecorder second = Recorder();
  Budget rest(29);
  EXPECT_EQ(RunTaskLoop(*other, fake, rest, 8, &second).measured, 29);
  EXPECT_EQ(Keys().size(), 40u);
}

TEST_F(TaskLoop, ABrokenEnvironmentEndsTheLoopKeepingWhatWasMeasured) {
  testing::FailingMeasurer measurer(5, MeasuredBatch::End::kBrokenEnvironment);
  auto task = MakeTask(gemm, workload);
  RunRecorder recorder = Recorder();
  Budget budget(40);
  const LoopEnd end = RunTaskLoop(*task, measurer, budget, 4, &recorder);
  EXPECT_EQ(end.broken, "the worker program is gone");
  EXPECT_EQ(end.measured, 5);
  EXPECT_EQ(store->Trials(ids).size(), 5u);
}

TEST_F(TaskLoop, ATimeLimitEndsTheBudget) {
  EXPECT_FALSE(Budget(1000, 3600).Exhausted());
  Budget budget(1000, 0.05);
  // Waits for the limit to pass; the deadline only guards against a limit that never comes.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!budget.time_up() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  EXPECT_TRUE(budget.time_up());
  EXPECT_TRUE(budget.Exhausted());
  Budget resumed(10, 0, nullptr, /*already_used=*/10);
  EXPECT_TRUE(resumed.Exhausted());
}

TEST_F(TaskLoop, ClaimsKeepTwoRunsOffEachOthersConfigs) {
  auto task = MakeTask(gemm, workload);
  const std::vector<Config> batch = task->Propose(6);
  RunRecorder first = Recorder(), second = Recorder();
  EXPECT_EQ(first.Claim(*task, batch).size(), 6u);
  EXPECT_TRUE(second.Claim(*task, batch).empty());  // being measured by the first
  const auto results = fake.Measure(task->measure_task(), {batch.begin(), batch.begin() + 3}).results;
  first.Record(*task, {batch.begin(), batch.begin() + 3}, results);
  first.ReleaseClaims();
  // Recorded ones stay taken; the released rest is free again.
  EXPECT_EQ(second.Claim(*task, batch).size(), 3u);
}

TEST_F(TaskLoop, ClaimsOfAProcessThatDiedAreVoid) {
  auto task = MakeTask(gemm, workload);
  const std::vector<Config> batch = task->Propose(3);
  const pid_t child = fork();
  if (child == 0) {
    auto store_in_child = SqliteHistoryStore::Open(dir.File("h.db"));
    RunRecorder dying(*store_in_child, ids, RunInfo{"random", "", 1, "child", 0});
    dying.Claim(*task, batch);
    _exit(0);  // killed mid-batch, as far as the database can tell
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  RunRecorder recorder = Recorder();
  EXPECT_EQ(recorder.Claim(*task, batch).size(), 3u);
}

TEST_F(TaskLoop, TransientFailuresAreMeasuredAgainAndTwoTimeoutsMeanHanging) {
  auto failed = [](const std::string& key, MeasureStatus status) {
    TrialRecord r = testing::FailedTrial(key, status);
    r.result.transient = true;
    return r;
  };
  const int64_t run = store->BeginRun(ids, {"random", "", 1, "test", 3});
  store->RecordBatch(run, ids,
                     {failed("killed", MeasureStatus::kRuntimeError), failed("slow", MeasureStatus::kTimeout),
                      testing::FailedTrial("broken", MeasureStatus::kCompileError)});
  auto keys = [&](bool retry) {
    std::set<std::string> k;
    for (const auto& m : store->MeasuredConfigs(ids, retry)) k.insert(m.config_key);
    return k;
  };
  EXPECT_EQ(keys(false), (std::set<std::string>{"broken"}));
  store->RecordBatch(run, ids, {failed("slow", MeasureStatus::kTimeout)});
  EXPECT_EQ(keys(false), (std::set<std::string>{"broken", "slow"}));  // hanging: not tried a third time
  EXPECT_EQ(keys(true), (std::set<std::string>{"broken"}));           // --retry-failed
  // A transient failure does not take the config: the final record may follow it.
  RunRecorder recorder = Recorder();
  EXPECT_NO_THROW(store->RecordBatch(recorder.run_id(), ids, {testing::OkTrial("killed", {1e-3})}));
  // But one config never has two final records: a second (one that appeared under a claim,
  // from a merge) is dropped, the first kept, and the run goes on.
  EXPECT_NO_THROW(store->RecordBatch(recorder.run_id(), ids, {testing::OkTrial("killed", {2e-3})}));
  int finals = 0;
  for (const auto& t : store->Trials(ids)) finals += t.config_key == "killed" && t.result.ok();
  EXPECT_EQ(finals, 1);
}

}  // namespace
}  // namespace tt
