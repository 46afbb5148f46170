// What SqliteHistoryStore::Open accepts, and what it refuses without writing anything.
#include <SQLiteCpp/SQLiteCpp.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::ReadBytes;
using testing::TempDir;

constexpr int kTensortuneApplicationId = 0x5454554E;  // "TTUN": changing it orphans old files

std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// Open must throw a one-line UserError naming the path and the problem, and write nothing:
// neither the file nor anything beside it changes.
void ExpectRefused(const std::string& path, const std::string& problem) {
  const fs::path dir = fs::path(path).parent_path();
  const bool dir_existed = fs::is_directory(dir);
  const std::set<std::string> files_before = dir_existed ? FilesIn(dir) : std::set<std::string>{};
  const bool is_file = fs::is_regular_file(path);
  const std::string bytes_before = is_file ? ReadBytes(path) : "";
  try {
    SqliteHistoryStore::Open(path);
    ADD_FAILURE() << "opened " << path;
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  ASSERT_EQ(fs::is_directory(dir), dir_existed) << dir;
  if (dir_existed) {
    EXPECT_EQ(FilesIn(dir), files_before);
  }
  if (is_file) {
    EXPECT_EQ(ReadBytes(path), bytes_before);
  }
}

TEST(HistoryOpen, CreatesMissingFileAtLatestVersionInWalMode) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  SqliteHistoryStore::Open(path).reset();
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), SqliteHistoryStore::LatestSchemaVersion());
  EXPECT_EQ(db.execAndGet("PRAGMA application_id").getInt(), kTensortuneApplicationId);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM sqlite_master WHERE name = 'trials'").getInt(), 1);
}

TEST(HistoryOpen, ReopenKeepsSchemaAndData) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  TaskIds first;
  {
    auto store = SqliteHistoryStore::Open(path);
    first = testing::GemmTask(*store);
    store->RecordBatch(store->BeginRun(first, {}), first, {testing::OkTrial("a", {1e-3})});
  }
  const std::string schema_before = [&] {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db.execAndGet("SELECT group_concat(sql, ';') FROM sqlite_master").getString();
  }();
  auto store = SqliteHistoryStore::Open(path);
  EXPECT_EQ(testing::GemmTask(*store), first);
  EXPECT_EQ(store->Trials(first).size(), 1u);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT group_concat(sql, ';') FROM sqlite_master").getString(), schema_before);
  EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), SqliteHistoryStore::LatestSchemaVersion());
}

TEST(HistoryOpen, AcceptsAnEmptyFile) {
  TempDir dir;
  const std::string path = dir.File("touched.db");
  std::ofstream(path).close();
  auto store = SqliteHistoryStore::Open(path);
  EXPECT_EQ(store->Trials(testing::GemmTask(*store)).size(), 0u);
}

TEST(HistoryOpen, RefusesDatabaseOfNewerTensortune) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  SqliteHistoryStore::Open(path).reset();
  const int newer = SqliteHistoryStore::LatestSchemaVersion() + 1;
  SQLite::Database(path, SQLite::OPEN_READWRITE).exec("PRAGMA user_version = " + std::to_string(newer));
  ExpectRefused(path, "newer tensortune: schema version " + std::to_string(newer) + ", this build knows up to " +
                          std::to_string(SqliteHistoryStore::LatestSchemaVersion()));
}

TEST(HistoryOpen, RefusesSqliteDatabasesOfOtherApplications) {
  TempDir dir;
  for (const std::string setup : {"CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada')",
                                  "PRAGMA application_id = 42", "PRAGMA user_version = 3"}) {
    SCOPED_TRACE(setup);
    const std::string path = dir.File("other.db");
    fs::remove(path);
    SQLite::Database(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec(setup);
    ExpectRefused(path, "not a tensortune database");
  }
}

// Before the length was checked, this opened and the first write padded the file with zeros.
TEST(HistoryOpen, RefusesDatabaseTruncatedInsideItsLastPage) {
  TempDir dir;
  const std::string path = testing::DatabaseOfManyPages(dir.File("history.db"));
  fs::resize_file(path, fs::file_size(path) - 1000);
  ExpectRefused(path, "truncated");
}

TEST(HistoryOpen, RefusesDatabaseMissingItsLastPages) {
  TempDir dir;
  const std::string path = testing::DatabaseOfManyPages(dir.File("history.db"));
  fs::resize_file(path, fs::file_size(path) - 3 * 4096);
  ExpectRefused(path, "truncated");
}

TEST(HistoryOpen, RefusesDatabaseWithOverwrittenPages) {
  TempDir dir;
  const std::string path = testing::DatabaseOfManyPages(dir.File("history.db"));
  testing::OverwriteMiddleThird(path);
  ExpectRefused(path, "corrupt");
}

TEST(HistoryOpen, RefusesTextFile) {
  TempDir dir;
  const std::string path = dir.File("notes.txt");
  std::ofstream(path) << "these are my notes, not a database\n";
  ExpectRefused(path, "not a SQLite database");
}

TEST(HistoryOpen, RefusesMissingDirectory) {
  TempDir dir;
  ExpectRefused((dir.path() / "no_such_dir" / "history.db").string(), "does not exist");
}

TEST(HistoryOpen, RefusesDirectoryAsPath) {
  TempDir dir;
  // A folder inside the test's own: ExpectRefused compares the parent's listing before and
  // after, and the system's temporary folder changes under tests running in parallel.
  const fs::path folder = dir.path() / "history.db";
  fs::create_directory(folder);
  ExpectRefused(folder.string(), "is a directory");
}

TEST(HistoryOpen, RefusesUnwritableDirectory) {
  TempDir dir;
  const fs::path locked = dir.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  // Permissions do not bind root; procfs refuses new files to everyone.
  const fs::path unwritable = access(locked.c_str(), W_OK) == 0 ? fs::path("/proc/self") : locked;
  ExpectRefused((unwritable / "history.db").string(), "not writable");
}

// Exit code of a child that drops root for `nobody` (uid and gid 65534) and tries to open
// `path`: 0 refused as not writable, 1 opened or refused otherwise, 2 could not drop root.
int OpenAsNobody(const std::string& path) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    try {
      SqliteHistoryStore::Open(path).reset();
    } catch (const UserError& e) {
      _exit(std::string(e.what()).find("not writable") != std::string::npos ? 0 : 1);
    } catch (...) {
    }
    _exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Permissions do not bind root, as CI runs the tests, so root checks the promise as `nobody`.
TEST(HistoryOpen, RefusesWriteProtectedDatabase) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  SqliteHistoryStore::Open(path).reset();
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  if (access(path.c_str(), W_OK) != 0) {
    ExpectRefused(path, "not writable");
    return;
  }
  ASSERT_EQ(geteuid(), 0u) << "a write-protected file is writable by a user other than root";
  const std::string bytes_before = ReadBytes(path);
  const std::set<std::string> files_before = FilesIn(dir.path());
  const int result = OpenAsNobody(path);
  if (result == 2) GTEST_SKIP() << "cannot drop root for uid 65534 here";
  EXPECT_EQ(result, 0) << "nobody opened a write-protected database, or it was refused for another reason";
  EXPECT_EQ(ReadBytes(path), bytes_before);
  EXPECT_EQ(FilesIn(dir.path()), files_before);
}

}  // namespace
}  // namespace tt
