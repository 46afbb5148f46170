// A device is its platform, name and driver with its number of compute units: POCL with one
// thread and with two keep their records apart, and a database written before that rule keeps
// its devices' records attached to them (migration 0011).
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "history/history_queries.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

DeviceInfo WithComputeUnits(unsigned units) {
  DeviceInfo d = CpuDevice();
  d.compute_units = units;
  return d;
}

TEST(DeviceIdentity, TheFingerprintNamesTheComputeUnitsWhenKnown) {
  EXPECT_EQ(WithComputeUnits(2).Fingerprint(), "Portable Computing Language | pthread-cpu | 3.1 | compute units: 2");
  EXPECT_NE(WithComputeUnits(1).Fingerprint(), WithComputeUnits(2).Fingerprint());
  DeviceInfo imported = WithComputeUnits(0);
  imported.imported = true;
  EXPECT_EQ(imported.Fingerprint(), "Portable Computing Language | pthread-cpu | 3.1");
}

TEST(DeviceIdentity, AnotherNumberOfComputeUnitsKeepsItsOwnRecords) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds one = GemmTask(*store, WithComputeUnits(1));
  const TaskIds two = GemmTask(*store, WithComputeUnits(2));
  EXPECT_NE(one.device, two.device);
  store->RecordBatch(store->BeginRun(one, {}), one, {OkTrial("one-thread", {2e-3})});
  store->RecordBatch(store->BeginRun(two, {}), two, {OkTrial("two-threads", {1e-3})});
  ASSERT_EQ(store->Trials(one).size(), 1u);
  EXPECT_EQ(store->Trials(one)[0].config_key, "one-thread");
  ASSERT_EQ(store->Trials(two).size(), 1u);
  EXPECT_EQ(store->Trials(two)[0].config_key, "two-threads");
  HistoryQueries queries(*store);
  EXPECT_EQ(queries.DeviceId(WithComputeUnits(1).Fingerprint()), one.device);
  EXPECT_EQ(queries.DeviceId(WithComputeUnits(2).Fingerprint()), two.device);
}

// A database as migrations 1 to 10 left it, a device seen here and an imported one in it.
void PlantVersion10(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (int v = 1; v <= 10; ++v) {
    char name[64];
    std::snprintf(name, sizeof name, "/migrations/%04d_", v);
    std::string file;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TT_SOURCE_DIR) + "/migrations"))
      if (entry.path().string().find(name) != std::string::npos) file = entry.path().string();
    ASSERT_FALSE(file.empty()) << name;
    db.exec(testing::ReadBytes(file));
  }
  db.exec("PRAGMA user_version = 10");
  db.exec(
      "INSERT INTO devices (fingerprint, platform, name, driver_version, type, compute_units, max_work_group_size, "
      "local_mem_bytes, global_mem_bytes, first_seen, imported) VALUES ('Portable Computing Language | pthread-cpu "
      "| 3.1', 'Portable Computing Language', 'pthread-cpu', '3.1', 'cpu', 2, 4096, 1048576, 6442450944, "
      "'2026-11-01T00:00:00.000Z', 0)");
  db.exec(
      "INSERT INTO devices (fingerprint, platform, name, driver_version, type, first_seen, imported) VALUES "
      "('Kernel Tuner | A100 | ', 'Kernel Tuner', 'A100', '', 'gpu', '2026-11-01T00:00:00.000Z', 1)");
}

TEST(DeviceIdentity, AnOlderDatabaseKeepsItsDevicesRecords) {
  TempDir dir;
  const std::string path = dir.File("v10.db");
  PlantVersion10(path);
  auto store = SqliteHistoryStore::Open(path);
  HistoryQueries queries(*store);
  const auto devices = queries.Devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(queries.DeviceId(CpuDevice().Fingerprint()), devices[0].first);
  EXPECT_EQ(queries.DeviceId("Kernel Tuner | A100 | "), devices[1].first);
  // The same device recording again finds its row rather than adding one.
  EXPECT_EQ(GemmTask(*store).device, devices[0].first);
  EXPECT_EQ(queries.Devices().size(), 2u);
}

}  // namespace
}  // namespace tt
