#include "schedule/network_tuner.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::TempDir;

const Network kTiny = ParseNetwork(R"({"name": "tiny", "layers": [
  {"name": "a", "op": "gemm", "shape": "{batch*16},16,16", "repeat": 2},
  {"name": "b", "op": "gemm", "shape": "{batch*8},32,16"},
  {"name": "a2", "op": "gemm", "shape": "{batch*16},16,16"}]})",
                                   "tiny");

NetworkTuneOptions Options(const std::string& scheduler, int64_t trials) {
  NetworkTuneOptions o;
  o.trials = trials;
  o.scheduler = scheduler;
  o.tuner = "random";
  o.batch_size = 4;
  o.command = "test";
  return o;
}

int64_t Count(const std::string& db, const std::string& sql) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  return d.execAndGet(sql).getInt64();
}

TEST(TuneNetwork, SpendsTheBudgetAcrossTasksAndRecordsTheRun) {
  for (const auto& scheduler : TaskSchedulerNames()) {
    TempDir dir;
    const std::string db = dir.File("h.db");
    auto store = SqliteHistoryStore::Open(db);
    FakeMeasurer fake{testing::IndexGflops};
    const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, Options(scheduler, 30), nullptr);
    EXPECT_EQ(report.trials_used, 30) << scheduler;
    ASSERT_EQ(report.tasks.size(), 2u);
    EXPECT_EQ(report.tasks[0].task.weight, 3);  // a, a2 (same workload) and a's repeat
    for (const auto& t : report.tasks) {
      EXPECT_TRUE(t.default_time_s) << scheduler;
      EXPECT_TRUE(t.Best()) << scheduler;
      EXPECT_GT(t.rounds, 0) << scheduler;
    }
    EXPECT_LE(report.LatencyS(), report.DefaultLatencyS());
    EXPECT_EQ(report.TasksAtDefault(), 0);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 30);
    EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 30);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM trials t JOIN runs r ON r.id = t.run_id WHERE r.network_run_id = 1"), 30);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs WHERE status = 'finished'"), 1);
    EXPECT_EQ(Count(db, "SELECT sum(weight) FROM network_tasks"), 4);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM network_tasks WHERE default_time_s > 0"), 2);
    EXPECT_GT(Count(db, "SELECT count(*) FROM network_progress"), 3);
    EXPECT_EQ(Count(db, "SELECT count(*) FROM claims"), 0);
  }
}

TEST(TuneNetwork, AnInterruptedRunContinuesWithoutMeasuringTwice) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  const NetworkTuneOptions options = Options("ucb", 40);
  {
    auto store = SqliteHistoryStore::Open(db);
    std::atomic<bool> interrupt{false};
    testing::FailingMeasurer stopping(17, MeasuredBatch::End::kStopped);
    const auto first = TuneNetwork(*store, stopping, CpuDevice(), testing::kLimits, kTiny, options, &interrupt);
    EXPECT_TRUE(first.interrupted);
    EXPECT_EQ(first.trials_used, 17);
  }
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs WHERE status = 'interrupted'"), 1);
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  const auto second = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, options, nullptr);
  EXPECT_TRUE(second.resumed);
  EXPECT_EQ(second.trials_used, 40);
  EXPECT_EQ(fake.measured(), 23u);  // the rest of the budget, defaults not measured again
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 40);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 40);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs"), 1);
  EXPECT_EQ(Count(db, "SELECT status = 'finished' FROM network_runs"), 1);
  // The same command once more: the run is finished, so it starts a new one, warm from history.
  const auto third = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, options, nullptr);
  EXPECT_FALSE(third.resumed);
  EXPECT_EQ(third.WarmTasks(), 2);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 80);
}

TEST(TuneNetwork, AutoTakesEachTasksHistoryFlow) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  FakeMeasurer fake{testing::IndexGflops};
  TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, Options("round-robin", 16), nullptr);
  NetworkTuneOptions automatic = Options("ucb", 16);
  automatic.tuner = "auto";
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, automatic, nullptr);
  EXPECT_EQ(report.trials_used, 16);
  EXPECT_EQ(report.WarmTasks(), 2);
  for (const auto& t : report.tasks)
    for (const auto& s : t.sketches) EXPECT_NE(s.flow.find("exact history"), std::string::npos) << s.flow;
  // Each sketch's run names the flow its tuner took.
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'auto-gga'"), 2);
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'auto'"), 0);
  // The first run's warm-up measured the untuned defaults in runs of their own.
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'default'"), 2);
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 32);
}

TEST(TuneNetwork, ABrokenEnvironmentMarksTheRunFailedAndKeepsItsTrials) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  testing::FailingMeasurer breaking(9, MeasuredBatch::End::kBrokenEnvironment);
  EXPECT_THROW(TuneNetwork(*store, breaking, CpuDevice(), testing::kLimits, kTiny, Options("gradient", 30), nullptr),
               EnvironmentError);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 9);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs WHERE status = 'failed' AND error LIKE '%worker%'"), 1);
  // The warm-up's runs ended before the break; the tuners' runs are failed.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE tuner = 'default' AND status = 'finished'"), 2);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE tuner != 'default' AND status != 'failed'"), 0);
  EXPECT_GT(Count(db, "SELECT count(*) FROM runs WHERE tuner != 'default'"), 0);
}

TEST(TuneNetwork, BadOptionsAreRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  NetworkTuneOptions bad = Options("fifo", 10);
  EXPECT_THROW(TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, bad, nullptr), UserError);
  bad = Options("ucb", 10);
  bad.tuner = "annealing";
  EXPECT_THROW(TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, kTiny, bad, nullptr), UserError);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs"), 0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM workloads"), 0);
}

}  // namespace
}  // namespace tt
