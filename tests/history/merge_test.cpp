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

TEST(HistoryMerge, RefusesWhatIsNotATensortuneDatabaseBeforeWriting) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  SqliteHistoryStore::Open(a).reset();
  {
    std::ofstream(dir.File("log.txt")) << "not a database";
  }
  auto store = SqliteHistoryStore::Open(dir.File("c.db"));
  RecordRun(*SqliteHistoryStore::Open(a), CpuDevice(), "random", {"x"});
  EXPECT_THROW(store->MergeFrom({a, dir.File("log.txt")}), UserError);
  EXPECT_THROW(store->MergeFrom({dir.File("missing.db")}), UserError);
  EXPECT_EQ(Count(dir.File("c.db"), "SELECT count(*) FROM trials"), 0);
}

}  // namespace
}  // namespace tt
