// A tune and a merge (or an import) writing one database at once: the merge leaves the
// configs a running tune has claimed to it, and a tune whose claimed config was recorded under
// it anyway keeps going (before: "UNIQUE constraint failed", the batch lost, exit 4).
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

int64_t Count(const std::string& path, const std::string& sql) {
  SQLite::Database db(path);
  return db.execAndGet(sql).getInt64();
}

void RecordFinishedRun(const std::string& path, const std::vector<std::string>& keys) {
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store, CpuDevice());
  const int64_t run = store->BeginRun(task, {"grid", "", 1, "other", static_cast<int64_t>(keys.size())});
  std::vector<TrialRecord> trials;
  for (const auto& key : keys) trials.push_back(OkTrial(key, {2e-3}));
  store->RecordBatch(run, task, trials);
  store->EndRun(run, "finished");
}

TEST(MergeRace, AMergeLeavesTheConfigsOfARunningTuneToIt) {
  TempDir dir;
  const std::string target = dir.File("target.db"), source = dir.File("source.db");
  RecordFinishedRun(source, {"k", "m"});
  auto store = SqliteHistoryStore::Open(target);
  const TaskIds task = GemmTask(*store, CpuDevice());
  const int64_t run = store->BeginRun(task, {"random", "", 1, "tune", 2});
  ASSERT_EQ(store->Claim(run, task, {"k"}), std::vector<bool>{true});

  const MergeCounts counts = store->MergeFrom({source});
  EXPECT_EQ(counts.trials_added, 1);  // m; k is the tune's
  EXPECT_NO_THROW(store->RecordBatch(run, task, {OkTrial("k", {1e-3})}));
  store->EndRun(run, "finished");
  EXPECT_EQ(Count(target, "SELECT count(*) FROM trials WHERE config_key = 'k'"), 1);
  EXPECT_EQ(Count(target, "SELECT run_id FROM trials WHERE config_key = 'k'"), run);
}

TEST(MergeRace, ATuneSurvivesAFinalRecordThatAppearedUnderItsClaim) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store, CpuDevice());
  const int64_t run = store->BeginRun(task, {"random", "", 1, "tune", 2});
  ASSERT_EQ(store->Claim(run, task, {"k", "n"}), (std::vector<bool>{true, true}));
  RecordFinishedRun(path, {"k"});  // another writer that did not ask for claims

  EXPECT_NO_THROW(store->RecordBatch(run, task, {OkTrial("k", {1e-3}), OkTrial("n", {1e-3})}));
  store->EndRun(run, "finished");
  EXPECT_EQ(Count(path, "SELECT count(*) FROM trials WHERE config_key = 'k'"), 1);
  EXPECT_EQ(Count(path, "SELECT count(*) FROM trials WHERE config_key = 'n'"), 1);
  EXPECT_EQ(Count(path, "SELECT count(*) FROM claims"), 0);
  EXPECT_EQ(Count(path, "SELECT count(*) FROM runs WHERE status = 'finished'"), 2);
}

}  // namespace
}  // namespace tt
