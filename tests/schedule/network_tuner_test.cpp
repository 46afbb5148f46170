#include "schedule/network_tuner.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::TempDir;

using testing::Tiny;

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
    NetworkTuneOptions o = Options(scheduler, 30);
    o.measure_default = true;  // the untuned defaults too, for DefaultLatencyS
    const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), o, nullptr);
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
    const auto first = TuneNetwork(*store, stopping, CpuDevice(), testing::kLimits, Tiny(), options, &interrupt);
    EXPECT_TRUE(first.interrupted);
    EXPECT_EQ(first.trials_used, 17);
  }
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs WHERE status = 'interrupted'"), 1);
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  const auto second = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), options, nullptr);
  EXPECT_TRUE(second.resumed);
  EXPECT_EQ(second.trials_used, 40);
  // The rest of the budget, defaults not measured again, and the leaders timed again at the end.
  EXPECT_GT(second.retimed.measurements, 0);
  EXPECT_EQ(fake.measured(), 23u + static_cast<size_t>(second.retimed.measurements));
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 40);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 40);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs"), 1);
  EXPECT_EQ(Count(db, "SELECT status = 'finished' FROM network_runs"), 1);
  // The same command once more: the run is finished, so it starts a new one, warm from history.
  const auto third = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), options, nullptr);
  EXPECT_FALSE(third.resumed);
  EXPECT_EQ(third.WarmTasks(), 2);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 80);
}

TEST(TuneNetwork, AutoTakesEachTasksHistoryFlow) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  FakeMeasurer fake{testing::IndexGflops};
  TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), Options("round-robin", 16), nullptr);
  NetworkTuneOptions automatic = Options("ucb", 16);
  automatic.tuner = "auto";
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), automatic, nullptr);
  EXPECT_EQ(report.trials_used, 16);
  EXPECT_EQ(report.WarmTasks(), 2);
  for (const auto& t : report.tasks)
    for (const auto& s : t.sketches) EXPECT_NE(s.flow.find("exact history"), std::string::npos) << s.flow;
  // Each sketch's run names the flow its tuner took.
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'auto-gga'"), 2);
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'auto'"), 0);
  // The first run's first round measured each task's first guess in runs of their own.
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(*) FROM runs WHERE tuner = 'first-round'"), 2);
  EXPECT_EQ(Count(dir.File("h.db"), "SELECT count(DISTINCT workload_id || config_key) FROM trials"), 32);
}

TEST(TuneNetwork, ABrokenEnvironmentMarksTheRunFailedAndKeepsItsTrials) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  testing::FailingMeasurer breaking(9, MeasuredBatch::End::kBrokenEnvironment);
  EXPECT_THROW(TuneNetwork(*store, breaking, CpuDevice(), testing::kLimits, Tiny(), Options("gradient", 30), nullptr),
               EnvironmentError);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 9);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs WHERE status = 'failed' AND error LIKE '%worker%'"), 1);
  // The first round's runs ended before the break; the tuners' runs are failed.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE tuner = 'first-round' AND status = 'finished'"), 2);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs WHERE tuner != 'first-round' AND status != 'failed'"), 0);
  EXPECT_GT(Count(db, "SELECT count(*) FROM runs WHERE tuner != 'first-round'"), 0);
}

TEST(TuneNetwork, TheTrialsThatBoughtNearlyAsMuchAreWhereTheCurveCameWithinOnePercent) {
  const std::vector<std::pair<int64_t, double>> curve{{12, 2.0}, {48, 1.05}, {96, 1.02}, {200, 1.009}, {400, 1.0}};
  EXPECT_EQ(TrialsToWithinOnePercent(curve, 1.0), 200);
  EXPECT_EQ(TrialsToWithinOnePercent(curve, 1.02), 96);  // the search ended higher; re-timing lowered the last point
  // Still falling at the end: the last point.
  EXPECT_EQ(TrialsToWithinOnePercent({{12, 2.0}, {24, 1.5}}, 1.0), 24);
  EXPECT_EQ(TrialsToWithinOnePercent({}, 1.0), std::nullopt);
}

// Three convolutions on which one sketch is ten times faster than every other: once the first
// task has shown it, the others are not tried on the next tasks, and each task says why.
const Network& Convs() {
  static const Network convs = ParseNetwork(R"({"name": "convs", "layers": [
  {"name": "c1", "op": "conv2d", "shape": "n={batch},ci=8,h=8,w=8,co=16,kh=3,kw=3,stride=1,pad=1"},
  {"name": "c2", "op": "conv2d", "shape": "n={batch},ci=16,h=8,w=8,co=16,kh=3,kw=3,stride=1,pad=1"},
  {"name": "c3", "op": "conv2d", "shape": "n={batch},ci=16,h=4,w=4,co=32,kh=3,kw=3,stride=1,pad=1"}]})",
                                            "convs");
  return convs;
}

double OneSketchWins(const MeasureTask& task, const Config& config) {
  const double spread = testing::IndexGflops(*task.space, config) / 97;  // below 1
  return task.kernel->name() == "conv2d_oc_vec" ? 50 + spread : 2 + spread;
}

TEST(TuneNetwork, ASketchThatNeverWinsStopsGettingTrialsEachTaskSaysWhyAndFirstLooksStartAtAGuess) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{OneSketchWins};
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Convs(), Options("ucb", 100), nullptr);
  ASSERT_EQ(report.tasks.size(), 3u);
  int64_t losers = 0, winner = 0;
  for (const auto& t : report.tasks) {
    for (const auto& s : t.sketches) (s.template_name == "conv2d_oc_vec" ? winner : losers) += s.measured;
    EXPECT_EQ(t.sketch_choice.rfind("conv2d_oc_vec: fastest of", 0), 0u) << t.sketch_choice;
  }
  // One first look at each losing sketch (on one task; the two Winograd sketches on channel
  // blocks among them): its guesses only, never a whole round of its tuner's configs; a round
  // for every sketch of every task would be 84. The guesses (the first round's, Winograd F(2x2)
  // on channel blocks, a CPU's first choice without evidence, and the first looks') are counted
  // in neither.
  EXPECT_LE(losers, 35);
  EXPECT_GE(winner, 2 * losers);
  EXPECT_LE(Count(db,
                  "SELECT max(n) FROM (SELECT count(*) AS n FROM trials t JOIN kernel_templates k ON k.id = "
                  "t.template_id WHERE k.name != 'conv2d_oc_vec' GROUP BY t.workload_id, t.template_id)"),
            2);
  // Sketches left untried because of what the other tasks showed, and the local-memory
  // sketch because this is a CPU.
  EXPECT_EQ(Count(db,
                  "SELECT count(*) FROM network_tasks WHERE sketch = 'conv2d_oc_vec' AND sketch_reason LIKE "
                  "'%not tried: %(prior 0.%of the fastest sketch on % other workload%'"),
            3);
  EXPECT_EQ(Count(db,
                  "SELECT count(*) FROM network_tasks WHERE sketch_reason LIKE "
                  "'%not tried: %conv2d_direct_local (prior 0.50: no evidence; it stages tiles in local memory%'"),
            3);
  // A sketch's first look on a task starts at its best guess (a transferred or device-class
  // starting config), recorded as a first-round run, never at its tuner's random configs.
  EXPECT_GT(Count(db, "SELECT count(DISTINCT template_id) FROM trials"), 3);
  EXPECT_EQ(Count(db,
                  "SELECT count(*) FROM (SELECT min(id) AS first FROM trials GROUP BY workload_id, template_id) f "
                  "JOIN trials t ON t.id = f.first JOIN runs r ON r.id = t.run_id WHERE r.tuner != 'first-round'"),
            0);
}

// A new run on the same database starts from what the history says of each sketch.
TEST(TuneNetwork, HistoryOfTheDeviceDecidesWhichSketchesATaskTriesFirst) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{OneSketchWins};
  TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Convs(), Options("ucb", 60), nullptr);
  const Network other = ParseNetwork(R"({"name": "other", "layers": [
    {"name": "d1", "op": "conv2d", "shape": "n={batch},ci=8,h=16,w=16,co=8,kh=3,kw=3,stride=1,pad=1"}]})",
                                     "other");
  FakeMeasurer second{OneSketchWins};
  const auto report = TuneNetwork(*store, second, CpuDevice(), testing::kLimits, other, Options("ucb", 20), nullptr);
  for (const auto& s : report.tasks.at(0).sketches)
    EXPECT_EQ(s.measured > 0, s.template_name == "conv2d_oc_vec") << s.template_name << " " << s.measured;
}

// With --warm-similar, a sketch's tuner starts at its first round from what is recorded by
// then: the task tuned first has nothing of a similar workload to start from; the next one
// starts from its records. Without, neither is primed.
TEST(TuneNetwork, ATaskTunedLaterInTheRunStartsFromTheRecordsOfOneTunedBefore) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  FakeMeasurer fake{testing::IndexGflops};
  NetworkTuneOptions o = Options("round-robin", 24);
  o.tuner = "bo";
  o.warm_similar = true;
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), o, nullptr);
  const auto flow = [&](size_t task) {
    for (const auto& s : report.tasks.at(task).sketches)
      if (s.template_name == "gemm_tiled") return s.flow;
    ADD_FAILURE() << "no gemm_tiled sketch";
    return std::string();
  };
  // Every tuner starts after the first round, which measured two guesses of each task: the
  // first task's tuner learns from the other task's two, the second from all the first's.
  EXPECT_NE(flow(0).find("2 records of 1 other workload of this run or earlier (best match gemm:m=12,n=32,k=16"),
            std::string::npos)
      << flow(0);
  EXPECT_EQ(flow(1).rfind("warm start from ", 0), 0u) << flow(1);
  EXPECT_NE(flow(1).find("of 1 other workload of this run or earlier (best match gemm:m=16,n=16,k=16"),
            std::string::npos)
      << flow(1);

  TempDir plain_dir;
  auto plain_store = SqliteHistoryStore::Open(plain_dir.File("h.db"));
  o.warm_similar = false;
  const auto plain = TuneNetwork(*plain_store, fake, CpuDevice(), testing::kLimits, Tiny(), o, nullptr);
  for (const auto& t : plain.tasks)
    for (const auto& s : t.sketches) EXPECT_EQ(s.flow, "") << s.template_name;
}

// The same with xgb, whose first batches the cross-task model of the earlier task's records
// plans, and with random, which cannot use the records and says so.
TEST(TuneNetwork, WarmSimilarPrimesXgbAndRandomSaysItCannotUseIt) {
  for (const std::string tuner : {"xgb", "random"}) {
    TempDir dir;
    auto store = SqliteHistoryStore::Open(dir.File("h.db"));
    FakeMeasurer fake{testing::IndexGflops};
    NetworkTuneOptions o = Options("round-robin", 24);
    o.tuner = tuner;
    o.warm_similar = true;
    const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), o, nullptr);
    std::string flow;
    for (const auto& s : report.tasks.at(1).sketches)
      if (s.template_name == "gemm_tiled") flow = s.flow;
    const std::string expected = tuner == "xgb" ? "warm start from " : "random cannot use warm-start records";
    EXPECT_EQ(flow.rfind(expected, 0), 0u) << flow;
    EXPECT_GT(report.tasks.at(1).sketches.front().measured + report.tasks.at(1).sketches.back().measured, 0);
  }
}

// --no-winograd: a 3x3 stride-1 convolution, which three Winograd sketches could compute, gets
// no trial of any of them; without it, they are among its sketches.
TEST(TuneNetwork, NoWinogradMeasuresNoWinogradSketch) {
  const Network conv = ParseNetwork(R"({"name": "conv", "layers": [
  {"name": "c", "op": "conv2d", "shape": "n={batch},ci=16,h=6,w=6,co=16,kh=3,kw=3,stride=1,pad=1"}]})",
                                    "conv");
  const auto winograd_sketches = [](const NetworkTaskReport& t) {
    return std::count_if(t.sketches.begin(), t.sketches.end(),
                         [](const SketchReport& s) { return s.template_name.find("winograd") != std::string::npos; });
  };
  for (const bool no_winograd : {false, true}) {
    TempDir dir;
    const std::string db = dir.File("h.db");
    auto store = SqliteHistoryStore::Open(db);
    FakeMeasurer fake{testing::IndexGflops};
    NetworkTuneOptions o = Options("ucb", 40);
    o.no_winograd = no_winograd;
    const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, conv, o, nullptr);
    ASSERT_EQ(report.tasks.size(), 1u);
    EXPECT_EQ(winograd_sketches(report.tasks[0]), no_winograd ? 0 : 3);
    EXPECT_EQ(report.trials_used, 40);
    const int64_t winograd_trials = Count(db,
                                          "SELECT count(*) FROM trials t JOIN kernel_templates k ON k.id = "
                                          "t.template_id WHERE k.name LIKE '%winograd%'");
    if (no_winograd) {
      EXPECT_EQ(winograd_trials, 0);
    } else {
      EXPECT_GT(winograd_trials, 0);  // the sketches vectorized over channels go first on a CPU
    }
  }
}

TEST(TuneNetwork, BadOptionsAreRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  NetworkTuneOptions bad = Options("fifo", 10);
  EXPECT_THROW(TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), bad, nullptr), UserError);
  bad = Options("ucb", 10);
  bad.tuner = "annealing";
  EXPECT_THROW(TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Tiny(), bad, nullptr), UserError);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM network_runs"), 0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM workloads"), 0);
}

}  // namespace
}  // namespace tt
