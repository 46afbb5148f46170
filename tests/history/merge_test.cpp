// Histories from several machines merged: devices and workloads unified, no duplicate trials.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

void RecordRun(SqliteHistoryStore& store, const DeviceInfo& device, const std::string& tuner,
               const std::vector<std::string>& keys) {
  const TaskIds task = GemmTask(store, device);
  const int64_t run = store.BeginRun(task, {tuner, "", 1, "test", static_cast<int64_t>(keys.size())});
  std::vector<TrialRecord> trials;
  for (const auto& key : keys) trials.push_back(OkTrial(key, {1e-3}));
  store.RecordBatch(run, task, trials);
  store.EndRun(run, "finished");
}

int64_t Count(const std::string& path, const std::string& sql) {
  SQLite::Database db(path);
  return db.execAndGet(sql).getInt64();
}

TEST(HistoryMerge, UnifiesDevicesAndWorkloadsAndAddsEachTrialOnce) {
  TempDir dir;
  const std::string a = dir.File("a.db"), b = dir.File("b.db"), c = dir.File("c.db");
  {
    auto store = SqliteHistoryStore::Open(a);
    RecordRun(*store, CpuDevice(), "random", {"x", "y"});
  }
  {
    auto store = SqliteHistoryStore::Open(b);
    RecordRun(*store, CpuDevice("other-cpu"), "ga", {"x"});
    RecordRun(*store, CpuDevice(), "grid", {"y", "z"});  // y is in a.db too
  }
  auto store = SqliteHistoryStore::Open(c);
  MergeCounts counts = store->MergeFrom({a, b});
  EXPECT_EQ(counts.trials_added, 4);  // x, y on pthread-cpu; x on other-cpu; z
  EXPECT_EQ(counts.trials_already_present, 1);
  EXPECT_EQ(counts.runs_added, 3);
  counts = store->MergeFrom({b, a});
  EXPECT_EQ(counts.trials_added, 0);
  EXPECT_EQ(counts.runs_added, 0);

  EXPECT_EQ(Count(c, "SELECT count(*) FROM devices"), 2);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM workloads"), 1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM trials"), 4);
  // z came with the grid run it was measured in.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM trials_view WHERE config_key = 'z' AND tuner = 'grid'"), 1);
  const TaskIds local = GemmTask(*store);
  EXPECT_EQ(store->Trials(local).size(), 3u);
}

// Network runs come along with their tasks, progress and the runs that belong to them; a
// transient failure is no measurement and stays behind, so the final record of its config comes
// instead; the knob schema comes with the template, so merged trials are warm-start candidates.
TEST(HistoryMerge, BringsNetworkRunsAndKnobSchemasAndLeavesTransientFailures) {
  TempDir dir;
  const std::string a = dir.File("a.db"), c = dir.File("c.db");
  {
    auto store = SqliteHistoryStore::Open(a);
    TemplateRef with_schema = testing::GemmTemplate();
    with_schema.knob_schema = "knobs-1";
    const TaskIds task = store->EnsureTask(testing::GemmWorkload(), 65536, with_schema, CpuDevice());
    const auto network = store->BeginNetworkRun(task.device, {"tiny", 1, "ucb", "ucb", "auto", 1, 8, "key-1", "test"},
                                                {{task.workload, 2, "conv1,conv2", std::nullopt}});
    store->SetDefaultTime(network.id, 0, 2e-3);
    const int64_t run = store->BeginRun(task, {"auto-gga", "", 1, "test", 8, network.id});
    TrialRecord transient = testing::FailedTrial("x", MeasureStatus::kTimeout);
    transient.result.transient = true;
    store->RecordBatch(run, task, {transient});
    store->RecordBatch(run, task, {OkTrial("x", {1e-3}), OkTrial("y", {2e-3})});
    store->RecordNetworkProgress(network.id, 3, 4e-3);
    store->EndRun(run, "finished");
    store->EndNetworkRun(network.id, "finished");
  }
  auto store = SqliteHistoryStore::Open(c);
  MergeCounts counts = store->MergeFrom({a});
  EXPECT_EQ(counts.network_runs_added, 1);
  EXPECT_EQ(counts.trials_added, 2);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM trials WHERE transient = 0 AND status = 'ok'"), 2);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM trials WHERE transient = 1"), 0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM network_tasks WHERE weight = 2 AND default_time_s = 2e-3"), 1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM network_progress WHERE trials = 3"), 1);
  EXPECT_EQ(Count(c,
                  "SELECT count(*) FROM runs r JOIN network_runs n ON n.id = r.network_run_id "
                  "WHERE n.resume_key = 'key-1' AND r.tuner = 'auto-gga'"),
            1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM kernel_templates WHERE knob_schema = 'knobs-1'"), 1);
  counts = store->MergeFrom({a});
  EXPECT_EQ(counts.network_runs_added, 0);
  EXPECT_EQ(counts.runs_added, 0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM network_progress"), 1);
}

TEST(HistoryMerge, RefusesWhatIsNotATensortuneDatabaseBeforeWriting) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  SqliteHistoryStore::Open(a).reset();
  { std::ofstream(dir.File("log.txt")) << "not a database"; }
  auto store = SqliteHistoryStore::Open(dir.File("c.db"));
  RecordRun(*SqliteHistoryStore::Open(a), CpuDevice(), "random", {"x"});
  EXPECT_THROW(store->MergeFrom({a, dir.File("log.txt")}), UserError);
  EXPECT_THROW(store->MergeFrom({dir.File("missing.db")}), UserError);
  EXPECT_EQ(Count(dir.File("c.db"), "SELECT count(*) FROM trials"), 0);
}

// Before: the source was attached for writing, and detaching it checkpointed its leftover -wal
// into it and deleted the -wal.
TEST(HistoryMerge, ReadsASourceWithALeftoverWalWithoutChangingIt) {
  TempDir dir;
  const std::string live = dir.File("live.db"), copy = dir.File("copy.db");
  {
    auto writer = SqliteHistoryStore::Open(live);
    RecordRun(*writer, CpuDevice(), "random", {"a", "b", "c"});
    // A copy taken while the writer is open: the trials are still in the -wal beside it.
    ASSERT_TRUE(std::filesystem::exists(live + "-wal"));
    std::filesystem::copy_file(live, copy);
    std::filesystem::copy_file(live + "-wal", copy + "-wal");
  }
  const std::string db_bytes = testing::ReadBytes(copy), wal_bytes = testing::ReadBytes(copy + "-wal");
  auto store = SqliteHistoryStore::Open(dir.File("into.db"));
  const MergeCounts counts = store->MergeFrom({copy});
  EXPECT_EQ(counts.trials_added, 3);
  EXPECT_EQ(testing::ReadBytes(copy), db_bytes);
  ASSERT_TRUE(std::filesystem::exists(copy + "-wal"));
  EXPECT_EQ(testing::ReadBytes(copy + "-wal"), wal_bytes);
}

// Before: values a CHECK constraint forbids (written with the checks off) failed the insert as an
// internal error (exit 4); the source is bad input, and nothing of it is merged.
TEST(HistoryMerge, ASourceHoldingForbiddenValuesIsBadInput) {
  TempDir dir;
  const std::string source = dir.File("source.db");
  RecordRun(*SqliteHistoryStore::Open(source), CpuDevice(), "random", {"a", "b"});
  {
    SQLite::Database db(source, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA ignore_check_constraints = 1; UPDATE trials SET status = 'bogus' WHERE config_key = 'b'");
  }
  auto store = SqliteHistoryStore::Open(dir.File("into.db"));
  try {
    store->MergeFrom({source});
    FAIL() << "merged";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be merged"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing of it was merged"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Count(dir.File("into.db"), "SELECT count(*) FROM trials"), 0);
  EXPECT_EQ(Count(dir.File("into.db"), "SELECT count(*) FROM runs"), 0);
}

}  // namespace
}  // namespace tt
