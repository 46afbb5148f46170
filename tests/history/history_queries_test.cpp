// The lean, indexed reads that warm starts and fallbacks use.
#include "history/history_queries.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::FailedTrial;
using testing::GemmWorkload;
using testing::OkTrial;
using testing::TempDir;

TemplateRef Version(const std::string& hash, const std::string& schema) { return {"gemm_tiled", "gemm", hash, schema}; }

void Record(SqliteHistoryStore& store, const TaskIds& task, const std::vector<TrialRecord>& trials) {
  const int64_t run = store.BeginRun(task, {"random", "", 1, "test", 1});
  store.RecordBatch(run, task, trials);
}

TEST(HistoryQueries, TaskTrialsAreLeanAndInRecordingOrder) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = store->EnsureTask(GemmWorkload(), 65536, Version("h1", "s1"), CpuDevice());
  Record(*store, task, {OkTrial("b", {2e-3}), FailedTrial("a", MeasureStatus::kCompileError), OkTrial("c", {1e-3})});
  const auto trials = HistoryQueries(*store).TaskTrials(task);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[0].config_key, "b");
  EXPECT_EQ(trials[1].status, MeasureStatus::kCompileError);
  EXPECT_EQ(trials[1].gflops, 0);
  EXPECT_NEAR(trials[2].gflops, 65536 / 1e-3 / 1e9, 1e-9);
}

// What the sketch priors read: per workload and template, the fastest ok time and how many ok
// trials it is the best of.
TEST(HistoryQueries, BestTimesByTemplateCountTheOkTrialsBehindEachBest) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds task = store->EnsureTask(GemmWorkload(), 65536, Version("h1", "s1"), CpuDevice());
  Record(*store, task, {OkTrial("b", {2e-3}), FailedTrial("a", MeasureStatus::kCompileError), OkTrial("c", {1e-3})});
  const auto best = HistoryQueries(*store).BestTimesByTemplate("gemm", task.device);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].template_name, "gemm_tiled");
  EXPECT_DOUBLE_EQ(best[0].time_s, 1e-3);
  EXPECT_EQ(best[0].trials, 2);
}

TEST(HistoryQueries, TemplateVersionsShareAKnobSchemaNotJustAName) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const auto id = [&](const TemplateRef& t) {
    return store->EnsureTask(GemmWorkload(), 1, t, CpuDevice()).kernel_template;
  };
  const int64_t v1 = id(Version("h1", "s1"));
  const int64_t v2 = id(Version("h2", "s1"));
  const int64_t other_knobs = id(Version("h3", "s2"));
  const int64_t unknown = id(Version("h4", ""));
  HistoryQueries queries(*store);
  EXPECT_EQ(queries.TemplateVersions("gemm_tiled", "s1", "h2"), (std::vector<int64_t>{v1, v2}));
  EXPECT_EQ(queries.TemplateVersions("gemm_tiled", "s2", "h3"), (std::vector<int64_t>{other_knobs}));
  EXPECT_EQ(queries.TemplateVersions("gemm_tiled", "", "h4"),
            (std::vector<int64_t>{unknown}));  // '' matches only itself
  EXPECT_TRUE(queries.TemplateVersions("conv2d", "s1", "h1").empty());
  // A version recorded before its schema was known gets it on the next run.
  EXPECT_EQ(id(Version("h4", "s1")), unknown);
  EXPECT_EQ(queries.TemplateVersions("gemm_tiled", "s1", "h1"), (std::vector<int64_t>{v1, v2, unknown}));
}

TEST(HistoryQueries, FindsWorkloadsOfAnOperatorAndTheirFastestTrialsPerDevice) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TemplateRef t = Version("h1", "s1");
  const TaskIds a = store->EnsureTask(GemmWorkload(64), 1, t, CpuDevice("cpu-a"));
  const TaskIds b = store->EnsureTask(GemmWorkload(128), 1, t, CpuDevice("cpu-b"));
  const TaskIds failed_only = store->EnsureTask(GemmWorkload(256), 1, t, CpuDevice("cpu-a"));
  store->EnsureTask({"conv2d", {{"n", 1}}}, 1, {"conv", "conv2d", "h9", "s9"}, CpuDevice("cpu-a"));
  Record(*store, a,
         {OkTrial("slow", {4e-3}), OkTrial("fast", {1e-3}), OkTrial("mid", {2e-3}),
          FailedTrial("broken", MeasureStatus::kWrongAnswer)});
  Record(*store, b, {OkTrial("other", {1e-3})});
  Record(*store, failed_only, {FailedTrial("x", MeasureStatus::kTimeout)});

  HistoryQueries queries(*store);
  const HistoryScope everywhere{{a.kernel_template}, 0};
  const auto workloads = queries.WorkloadsWithOkTrials("gemm", everywhere);
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].id, a.workload);
  EXPECT_EQ(workloads[0].workload, GemmWorkload(64));
  EXPECT_EQ(workloads[1].workload, GemmWorkload(128));
  const HistoryScope on_b{{a.kernel_template}, b.device};
  ASSERT_EQ(queries.WorkloadsWithOkTrials("gemm", on_b).size(), 1u);
  EXPECT_TRUE(queries.WorkloadsWithOkTrials("gemm", {{}, 0}).empty());

  const auto fastest = queries.FastestTrials(a.workload, everywhere, 2);
  ASSERT_EQ(fastest.size(), 2u);
  EXPECT_EQ(fastest[0].config_key, "fast");
  EXPECT_EQ(fastest[1].config_key, "mid");
  EXPECT_TRUE(queries.FastestTrials(a.workload, on_b, 5).empty());
  EXPECT_EQ(queries.DeviceId(CpuDevice("cpu-b").Fingerprint()), b.device);
  EXPECT_EQ(queries.DeviceId("nothing"), 0);
  EXPECT_EQ(queries.WorkloadId(GemmWorkload(128).Key()), b.workload);
  EXPECT_EQ(queries.WorkloadId("gemm:m=1,n=1,k=1"), 0);
  const auto devices = queries.Devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].first, b.device);
  EXPECT_EQ(devices[1].second.Fingerprint(), CpuDevice("cpu-b").Fingerprint());
  EXPECT_EQ(devices[1].second.max_work_group_size, CpuDevice().max_work_group_size);
}

TEST(HistoryQueries, SearchesUseTheIndexes) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  SQLite::Database db(dir.File("h.db"), SQLite::OPEN_READONLY);
  const auto plan = [&](const std::string& sql) {
    SQLite::Statement q(db, "EXPLAIN QUERY PLAN " + sql);
    std::string text;
    while (q.executeStep()) text += q.getColumn(3).getString() + "\n";
    return text;
  };
  // Named: trials_ok_by_time has the same leading columns, and without statistics SQLite may
  // take either.
  EXPECT_NE(plan("SELECT config_key, gflops FROM trials INDEXED BY trials_ok_by_gflops WHERE workload_id = 1 AND "
                 "status = 'ok' AND "
                 "template_id IN (1, 2) AND device_id = 3 ORDER BY gflops DESC LIMIT 8")
                .find("trials_ok_by_gflops"),
            std::string::npos);
  EXPECT_NE(plan("SELECT id FROM workloads WHERE op = 'gemm'").find("workloads_by_op"), std::string::npos);
  // best_per_task took 425 s on 1,000,000 trials: one ordered probe per task now.
  EXPECT_NE(plan("SELECT * FROM best_per_task").find("USING INDEX trials_ok_by_time"), std::string::npos)
      << plan("SELECT * FROM best_per_task");
}

}  // namespace
}  // namespace tt
