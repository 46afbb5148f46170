// Recording and reading trials: round trips, atomic batches, best, sharing one file.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "history/history_test_support.h"
#include "history/timestamp.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::FailedTrial;
using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

void ExpectSameRecord(const TrialRecord& got, const TrialRecord& want) {
  EXPECT_EQ(got.config_key, want.config_key);
  EXPECT_EQ(got.config_json, want.config_json);
  EXPECT_EQ(got.result.status, want.result.status);
  EXPECT_EQ(got.result.times_s, want.result.times_s);  // exact: doubles survive JSON
  EXPECT_EQ(got.result.time_s, want.result.time_s);
  EXPECT_EQ(got.result.gflops, want.result.gflops);
  EXPECT_EQ(got.result.compile_s, want.result.compile_s);
  EXPECT_EQ(got.result.error, want.result.error);
  EXPECT_EQ(got.batch, want.batch);
  EXPECT_EQ(got.started_at, want.started_at);
  EXPECT_EQ(got.finished_at, want.finished_at);
}

std::string RunColumn(const std::string& path, int64_t run_id, const std::string& column) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT coalesce(" + column + ", 'NULL') FROM runs WHERE id = ?");
  q.bind(1, run_id);
  return q.executeStep() ? q.getColumn(0).getString() : "no run";
}

TEST(HistoryStore, RoundTripsEveryFieldOfEveryStatus) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = GemmTask(*store);
  const int64_t run = store->BeginRun(task, {"ga", R"({"population":8})", 7, "tensortune tune", 10});

  std::vector<TrialRecord> records;
  records.push_back(OkTrial("ok", {0.1 + 0.2, 1e-9, 3.14159e-5, 1.0 / 3}, 3));
  for (MeasureStatus status : {MeasureStatus::kInvalidConfig, MeasureStatus::kCompileError,
                               MeasureStatus::kRuntimeError, MeasureStatus::kWrongAnswer, MeasureStatus::kTimeout})
    records.push_back(FailedTrial(std::string(ToString(status)), status, 3));
  records[2].result.error = "line 1: 'x' undeclared\n\"quoted\" \xE2\x9C\x97";
  records[4].result.times_s = {2.5e-3, 2.25e-3};  // a wrong answer was still timed
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].started_at = "2024-05-01T12:00:0" + std::to_string(i) + ".000Z";
    records[i].finished_at = "2024-05-01T12:00:0" + std::to_string(i) + ".500Z";
  }
  store->RecordBatch(run, task, records);

  const std::vector<TrialRecord> got = store->Trials(task);
  ASSERT_EQ(got.size(), records.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(records[i].config_key);
    ExpectSameRecord(got[i], records[i]);
    EXPECT_EQ(got[i].run_id, run);
  }
  EXPECT_EQ(store->CountTrials(run), static_cast<int64_t>(records.size()));
}

TEST(HistoryStore, FillsMissingTimesWithTheCommitTime) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = GemmTask(*store);
  const std::string before = UtcNowIso8601();
  store->RecordBatch(store->BeginRun(task, {}), task, {OkTrial("a", {1e-3})});
  const TrialRecord got = store->Trials(task).at(0);
  EXPECT_GE(got.started_at, before);
  EXPECT_GE(got.finished_at, got.started_at);
}

TEST(HistoryStore, TimestampsAreIso8601Utc) {
  EXPECT_TRUE(std::regex_match(UtcNowIso8601(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)")));
}

TEST(HistoryStore, EnsureTaskFindsExistingRowsAndSeparatesDevices) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds cpu = GemmTask(*store);
  EXPECT_EQ(GemmTask(*store), cpu);
  const TaskIds other = GemmTask(*store, CpuDevice("another-cpu"));
  EXPECT_EQ(other.workload, cpu.workload);
  EXPECT_EQ(other.kernel_template, cpu.kernel_template);
  EXPECT_NE(other.device, cpu.device);
  const TaskIds bigger = store->EnsureTask(testing::GemmWorkload(128), 1e6, testing::GemmTemplate(), CpuDevice());
  EXPECT_NE(bigger.workload, cpu.workload);

  const int64_t run = store->BeginRun(cpu, {});
  store->RecordBatch(run, cpu, {OkTrial("on-cpu", {1e-3})});
  store->RecordBatch(run, other, {OkTrial("on-other", {1e-3})});
  ASSERT_EQ(store->Trials(cpu).size(), 1u);
  EXPECT_EQ(store->Trials(cpu)[0].config_key, "on-cpu");
  EXPECT_TRUE(store->Trials(bigger).empty());
}

TEST(HistoryStore, RecordedTasksListDevicesWithTrialsOfTheSameTemplateRevision) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds cpu = GemmTask(*store);
  const TaskIds idle = GemmTask(*store, CpuDevice("idle-cpu"));  // known, but nothing measured
  const TaskIds other = GemmTask(*store, CpuDevice("another-cpu"));
  const int64_t run = store->BeginRun(cpu, {});
  store->RecordBatch(run, cpu, {OkTrial("a", {1e-3})});
  store->RecordBatch(run, other, {FailedTrial("b", MeasureStatus::kTimeout)});

  const auto tasks = store->RecordedTasks(testing::GemmWorkload(), testing::GemmTemplate());
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].first, cpu);
  EXPECT_EQ(tasks[0].second.name, "pthread-cpu");
  EXPECT_EQ(tasks[0].second.max_work_group_size, CpuDevice().max_work_group_size);
  EXPECT_EQ(tasks[1].first, other);
  EXPECT_NE(tasks[1].first, idle);

  TemplateRef revised = testing::GemmTemplate();
  revised.source_hash = "hash-2";
  EXPECT_TRUE(store->RecordedTasks(testing::GemmWorkload(), revised).empty());
  EXPECT_TRUE(store->RecordedTasks(testing::GemmWorkload(128), testing::GemmTemplate()).empty());
}

TEST(HistoryStore, WorkloadDimsAreQueryableJson) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  GemmTask(*SqliteHistoryStore::Open(path));
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT dims_json FROM workloads").getString(), R"({"m":64,"n":32,"k":16})");
  EXPECT_EQ(db.execAndGet("SELECT key FROM workloads").getString(), "gemm:m=64,n=32,k=16");
}

TEST(HistoryStore, RecordBatchIsAtomic) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = GemmTask(*store);
  const int64_t run = store->BeginRun(task, {});
  store->RecordBatch(run, task, {OkTrial("a", {1e-3}, 0), OkTrial("b", {2e-3}, 0)});

  TrialRecord broken = OkTrial("broken", {1e-3}, 1);
  broken.config_json = "[[\"tile\"";  // violates CHECK (json_valid(config_json))
  EXPECT_THROW(store->RecordBatch(run, task, {OkTrial("c", {1e-3}, 1), broken}), std::invalid_argument);

  const auto trials = store->Trials(task);
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].config_key, "a");
  EXPECT_EQ(trials[1].config_key, "b");
  EXPECT_EQ(store->CountTrials(run), 2);
  store->RecordBatch(run, task, {OkTrial("d", {1e-3}, 2)});  // the store is still usable
  EXPECT_EQ(store->CountTrials(run), 3);
}

TEST(HistoryStore, RecordBatchRejectsUnknownRun) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = GemmTask(*store);
  EXPECT_THROW(store->RecordBatch(12345, task, {OkTrial("a", {1e-3})}), std::invalid_argument);
  EXPECT_TRUE(store->Trials(task).empty());
}

TEST(HistoryStore, BestIsTheFastestOkTrial) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = GemmTask(*store);
  const int64_t run = store->BeginRun(task, {});
  TrialRecord fast_but_wrong = FailedTrial("wrong", MeasureStatus::kWrongAnswer);
  fast_but_wrong.result.times_s = {1e-6};
  fast_but_wrong.result.time_s = 1e-6;
  EXPECT_FALSE(store->Best(task));
  store->RecordBatch(run, task, {fast_but_wrong, FailedTrial("slow-compile", MeasureStatus::kTimeout)});
  EXPECT_FALSE(store->Best(task)) << "only failed trials so far";

  store->RecordBatch(run, task,
                     {OkTrial("slow", {4e-3}), OkTrial("fast", {1e-3, 3e-3, 2e-3}), OkTrial("middle", {3e-3})});
  const auto best = store->Best(task);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config_key, "fast");
  EXPECT_DOUBLE_EQ(best->result.time_s, 2e-3);
  EXPECT_DOUBLE_EQ(best->result.gflops, 65536 / 2e-3 * 1e-9);
}

TEST(HistoryStore, RunsRecordOptionsAndEnd) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  const int64_t run = store->BeginRun(task, {"random", "", ~uint64_t{0}, "tensortune tune gemm", 64});
  EXPECT_EQ(RunColumn(path, run, "status"), "running");
  EXPECT_EQ(RunColumn(path, run, "ended_at"), "NULL");
  EXPECT_EQ(RunColumn(path, run, "options_json"), "{}");
  EXPECT_EQ(RunColumn(path, run, "seed"), "-1");  // the same 64 bits
  EXPECT_EQ(RunColumn(path, run, "command"), "tensortune tune gemm");
  EXPECT_EQ(RunColumn(path, run, "trials_requested"), "64");

  store->EndRun(run, "interrupted");
  EXPECT_EQ(RunColumn(path, run, "status"), "interrupted");
  EXPECT_NE(RunColumn(path, run, "ended_at"), "NULL");
  EXPECT_THROW(store->EndRun(run, "exploded"), std::invalid_argument);
  EXPECT_THROW(store->EndRun(run + 1, "finished"), std::invalid_argument);
  EXPECT_EQ(RunColumn(path, run, "status"), "interrupted");
}

TEST(HistoryStore, TrialsViewNamesEverything) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  {
    auto store = SqliteHistoryStore::Open(path);
    const TaskIds task = GemmTask(*store);
    store->RecordBatch(store->BeginRun(task, {"ga", "", 1, "", 1}), task, {OkTrial("a", {1e-3})});
  }
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT tuner, op, workload, template, device, status FROM trials_view");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getString(), "ga");
  EXPECT_EQ(q.getColumn(1).getString(), "gemm");
  EXPECT_EQ(q.getColumn(2).getString(), "gemm:m=64,n=32,k=16");
  EXPECT_EQ(q.getColumn(3).getString(), "gemm_tiled");
  EXPECT_EQ(q.getColumn(4).getString(), "pthread-cpu");
  EXPECT_EQ(q.getColumn(5).getString(), "ok");
}

TEST(HistoryStore, TwoStoresOnOneFileBothWrite) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  auto first = SqliteHistoryStore::Open(path);
  auto second = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*first);
  EXPECT_EQ(GemmTask(*second), task);
  const int64_t run1 = first->BeginRun(task, {});
  const int64_t run2 = second->BeginRun(task, {});
  first->RecordBatch(run1, task, {OkTrial("a", {1e-3})});
  second->RecordBatch(run2, task, {OkTrial("b", {1e-3})});
  first->RecordBatch(run1, task, {OkTrial("c", {1e-3})});
  EXPECT_EQ(first->Trials(task).size(), 3u);
  EXPECT_EQ(second->Trials(task).size(), 3u);
  EXPECT_EQ(second->CountTrials(run1), 2);
}

TEST(HistoryStore, ConcurrentWritersLoseNothing) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  const TaskIds task = GemmTask(*SqliteHistoryStore::Open(path));
  constexpr int kBatches = 40, kPerBatch = 5;
  auto writer = [&](std::string name) {
    try {
      auto store = SqliteHistoryStore::Open(path);
      const int64_t run = store->BeginRun(task, {});
      for (int b = 0; b < kBatches; ++b) {
        std::vector<TrialRecord> batch;
        for (int i = 0; i < kPerBatch; ++i)
          batch.push_back(OkTrial(name + std::to_string(b * kPerBatch + i), {1e-3}, b));
        store->RecordBatch(run, task, batch);
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "writer " << name << ": " << e.what();
    }
  };
  std::thread a(writer, "a"), b(writer, "b");
  a.join();
  b.join();
  EXPECT_EQ(SqliteHistoryStore::Open(path)->Trials(task).size(), 2u * kBatches * kPerBatch);
}

TEST(HistoryStore, KilledRunKeepsEveryCommittedBatch) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a tuner that dies without closing anything
    auto store = SqliteHistoryStore::Open(path);
    const TaskIds task = GemmTask(*store);
    const int64_t run = store->BeginRun(task, {});
    store->RecordBatch(run, task, {OkTrial("a", {1e-3}, 0), OkTrial("b", {1e-3}, 0)});
    store->RecordBatch(run, task, {OkTrial("c", {1e-3}, 1)});
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto store = SqliteHistoryStore::Open(path);
  const auto trials = store->Trials(GemmTask(*store));
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2].batch, 1);
  // Its process is gone: opening the database for writing ended the run (stale_run_test.cpp).
  EXPECT_EQ(RunColumn(path, trials[0].run_id, "status"), "failed");
}

}  // namespace
}  // namespace tt
