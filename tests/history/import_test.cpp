// Trials recorded elsewhere: imported once, on an imported device, never this machine's history.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::GemmTemplate;
using testing::GemmWorkload;
using testing::OkTrial;
using testing::TempDir;

DeviceInfo ImportedGpu() {
  DeviceInfo d;
  d.platform = "AutoTVM";
  d.name = "cuda -model=v100";
  d.type = "gpu";
  d.imported = true;
  return d;
}

ImportedTask GemmImport(std::vector<TrialRecord> trials) {
  return {GemmWorkload(), 65536, GemmTemplate(), ImportedGpu(), std::move(trials)};
}

TEST(HistoryImport, AddsEachTaskAndConfigOnce) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const auto first =
      store->Import({GemmImport({OkTrial("a", {1e-3}), OkTrial("b", {2e-3}), OkTrial("a", {5e-3})})}, "log");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].added, 2);
  EXPECT_EQ(first[0].already_present, 1);  // "a" twice in one file: the first one counts
  const auto again = store->Import({GemmImport({OkTrial("a", {1e-3}), OkTrial("c", {3e-3})})}, "log");
  EXPECT_EQ(again[0].added, 1);
  EXPECT_EQ(again[0].already_present, 1);

  const TaskIds imported = store->EnsureTask(GemmWorkload(), 65536, GemmTemplate(), ImportedGpu());
  const auto trials = store->Trials(imported);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[0].result.times_s, std::vector<double>{1e-3});
  ASSERT_TRUE(store->Best(imported).has_value());
  EXPECT_EQ(store->Best(imported)->config_key, "a");
}

TEST(HistoryImport, ImportedDevicesHaveUnknownLimitsAndAreNotLocalHistory) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  {
    auto store = SqliteHistoryStore::Open(path);
    store->Import({GemmImport({OkTrial("a", {1e-3})})}, "log");
    const TaskIds local = store->EnsureTask(GemmWorkload(), 65536, GemmTemplate(), CpuDevice());
    EXPECT_TRUE(store->Trials(local).empty());
    EXPECT_FALSE(store->Best(local).has_value());
    const auto recorded = store->RecordedTasks(GemmWorkload(), GemmTemplate());
    ASSERT_EQ(recorded.size(), 1u);
    EXPECT_TRUE(recorded[0].second.imported);
  }
  SQLite::Database db(path);
  SQLite::Statement q(db, "SELECT imported, max_work_group_size IS NULL FROM devices ORDER BY id");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt(), 1);
  EXPECT_EQ(q.getColumn(1).getInt(), 1);
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt(), 0);
  EXPECT_EQ(q.getColumn(1).getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM runs WHERE tuner = 'import' AND status = 'finished'").getInt(), 1);
}

TEST(HistoryImport, ALocalDeviceMustHaveItsLimits) {
  TempDir dir;
  SqliteHistoryStore::Open(dir.File("h.db")).reset();
  SQLite::Database db(dir.File("h.db"), SQLite::OPEN_READWRITE);
  EXPECT_THROW(db.exec("INSERT INTO devices (fingerprint, platform, name, driver_version, type, first_seen) "
                       "VALUES ('x', 'p', 'n', 'd', 'gpu', 'now')"),
               SQLite::Exception);
}

}  // namespace
}  // namespace tt
