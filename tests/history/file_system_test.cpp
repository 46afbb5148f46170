// A history on a network file system (NFS, Lustre, GPFS, ...) is kept in rollback-journal
// mode: WAL's shared memory is not coherent across hosts. The file system type is injected.
#include "history/file_system.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::TempDir;

std::string JournalMode(const std::string& path) {
  SQLite::Database db(path);
  return db.execAndGet("PRAGMA journal_mode").getString();
}

struct ProbeReset {
  ~ProbeReset() { SetFileSystemTypeProbe({}); }
};

TEST(FileSystem, AHistoryOnANetworkFileSystemIsNotInWalMode) {
  TempDir dir;
  ProbeReset reset;
  for (const int64_t type : {int64_t{0x6969}, int64_t{0x0BD00BD0}, int64_t{0x47504653}}) {  // NFS, Lustre, GPFS
    SetFileSystemTypeProbe([type](const std::string&) { return std::optional<int64_t>(type); });
    const std::string path = dir.File("net" + std::to_string(type) + ".db");
    ASSERT_TRUE(NetworkFileSystemOf(path));
    {
      auto store = SqliteHistoryStore::Open(path);
      const TaskIds task = testing::GemmTask(*store);
      const int64_t run = store->BeginRun(task, {"random", "", 1, "test", 1});
      store->RecordBatch(run, task, {testing::OkTrial("k", {1e-3})});
      store->EndRun(run, "finished");
    }
    EXPECT_EQ(JournalMode(path), "delete");
  }
  // A WAL database moved onto one is switched when opened for writing.
  SetFileSystemTypeProbe({});
  const std::string moved = dir.File("moved.db");
  { SqliteHistoryStore::Open(moved); }
  EXPECT_EQ(JournalMode(moved), "wal");
  SetFileSystemTypeProbe([](const std::string&) { return std::optional<int64_t>(0x6969); });
  { SqliteHistoryStore::Open(moved); }
  EXPECT_EQ(JournalMode(moved), "delete");
}

TEST(FileSystem, LocalFileSystemsKeepWal) {
  TempDir dir;
  ProbeReset reset;
  SetFileSystemTypeProbe([](const std::string&) { return std::optional<int64_t>(0xEF53); });  // ext4
  const std::string path = dir.File("local.db");
  EXPECT_FALSE(NetworkFileSystemOf(path));
  { SqliteHistoryStore::Open(path); }
  EXPECT_EQ(JournalMode(path), "wal");
}

}  // namespace
}  // namespace tt
