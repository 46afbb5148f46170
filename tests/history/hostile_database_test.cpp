// A database file from elsewhere is untrusted input: what it may plant (triggers, views in place
// of tables, virtual tables, indexes, odd versions) is refused before anything is written, and
// no statement may reach SQLite's pointer-passing functions or exhaust memory.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "core/errors.h"
#include "history/history_test_support.h"
#include "history/sql_query.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::GemmTask;
using testing::OkTrial;
using testing::ReadBytes;
using testing::TempDir;

std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// A closed tensortune database with one run of two trials.
std::string History(const TempDir& dir, const std::string& name = "h.db") {
  const std::string path = dir.File(name);
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  const int64_t run = store->BeginRun(task, {"random", "", 1, "test", 2});
  store->RecordBatch(run, task, {OkTrial("a", {2e-3}), OkTrial("b", {1e-3})});
  store->EndRun(run, "finished");
  return path;
}

// Changes a database as someone else's program would: a plain connection, no defences.
void Plant(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(sql);
}

// Every way of opening it refuses, naming the problem in one line, and the file and its
// folder stay exactly as they were.
void ExpectEveryOpenRefuses(const std::string& path, const std::string& problem) {
  const std::string bytes = ReadBytes(path);
  const auto files = FilesIn(fs::path(path).parent_path());
  const auto expect_refusal = [&](const char* what, const auto& open) {
    SCOPED_TRACE(what);
    try {
      open();
      ADD_FAILURE() << "opened";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    EXPECT_EQ(ReadBytes(path), bytes);
    EXPECT_EQ(FilesIn(fs::path(path).parent_path()), files);
  };
  expect_refusal("for writing", [&] { SqliteHistoryStore::Open(path); });
  expect_refusal("read-only", [&] { SqliteHistoryStore::OpenReadOnly(path); });
  expect_refusal("as a merge source", [&] { SqliteHistoryStore::CheckMergeSource(path); });
  expect_refusal("by sql", [&] { RunSql(path, "SELECT count(*) FROM trials", false); });
}

// Before: the trigger ran inside tune's own transactions (it deleted runs, renamed the device).
TEST(HostileDatabase, RefusesTriggers) {
  TempDir dir;
  const std::string path = History(dir);
  Plant(path,
        "CREATE TRIGGER wipe AFTER INSERT ON trials BEGIN DELETE FROM trials WHERE id < new.id; "
        "UPDATE devices SET name = 'pwned'; END");
  ExpectEveryOpenRefuses(path, "trigger (wipe)");
}

// Before: merge ran forever on a recursive view named `trials`, holding the target's write lock.
TEST(HostileDatabase, RefusesAViewInPlaceOfATable) {
  TempDir dir;
  const std::string path = History(dir);
  Plant(path, "ALTER TABLE trials RENAME TO trials_kept; CREATE VIEW trials AS SELECT * FROM trials_kept");
  ExpectEveryOpenRefuses(path, "trials is a view where tensortune has a table");
}

TEST(HostileDatabase, RefusesVirtualTables) {
  TempDir dir;
  const std::string path = History(dir);
  Plant(path, "CREATE VIRTUAL TABLE ft USING fts3(x); INSERT INTO ft VALUES ('text')");
  ExpectEveryOpenRefuses(path, "virtual table (ft)");
}

TEST(HostileDatabase, RefusesTensortunesObjectsRedefined) {
  TempDir dir;
  const std::string view = History(dir, "view.db");
  Plant(view,
        "DROP VIEW best_per_task; CREATE VIEW best_per_task AS WITH RECURSIVE c(x) AS "
        "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c");
  ExpectEveryOpenRefuses(view, "view best_per_task is not defined as tensortune defines it");
  const std::string table = History(dir, "table.db");
  Plant(table, "ALTER TABLE runs ADD COLUMN note TEXT");
  ExpectEveryOpenRefuses(table, "table runs is not defined as tensortune defines it");
  const std::string missing = History(dir, "missing.db");
  Plant(missing, "DROP INDEX trials_by_run");
  ExpectEveryOpenRefuses(missing, "index trials_by_run is missing");
}

// A unique index of someone else's would make tensortune's inserts fail as a constraint error.
TEST(HostileDatabase, RefusesUniqueAndExpressionIndexesButKeepsPlainOnes) {
  TempDir dir;
  const std::string unique = History(dir, "unique.db");
  Plant(unique, "CREATE UNIQUE INDEX one_trial_per_run ON trials (run_id, config_key)");
  ExpectEveryOpenRefuses(unique, "unique or partial index on table trials (one_trial_per_run)");
  const std::string expression = History(dir, "expression.db");
  Plant(expression, "CREATE INDEX big ON trials (length(zeroblob(1000000)))");
  ExpectEveryOpenRefuses(expression, "index on an expression of table trials (big)");

  // A user's own plain index and table are theirs to keep.
  const std::string own = History(dir, "own.db");
  Plant(own, "CREATE INDEX trials_by_gflops ON trials (gflops); CREATE TABLE notes (text TEXT)");
  auto store = SqliteHistoryStore::Open(own);
  const TaskIds task = GemmTask(*store);
  store->RecordBatch(store->BeginRun(task, {}), task, {OkTrial("c", {3e-3})});
  EXPECT_EQ(store->Trials(task).size(), 3u);
}

// Before: both were switched to WAL mode (the file changed) and only then refused.
TEST(HostileDatabase, RefusesImpossibleVersionsWithoutChangingTheFile) {
  TempDir dir;
  for (const int version : {-1, 0}) {
    SCOPED_TRACE(version);
    const std::string path = History(dir, "v" + std::to_string(version + 1) + ".db");
    Plant(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = " + std::to_string(version));
    ExpectEveryOpenRefuses(path, "schema version " + std::to_string(version) + " is none that tensortune writes");
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "delete");
  }
}

// Before: fts3_tokenizer('simple') printed a process address, and its two-argument form
// registered a pointer of the user's choosing, which crashed the process on the next use.
TEST(HostileDatabase, SqlCannotReachPointerFunctions) {
  TempDir dir;
  const std::string path = History(dir);
  for (const bool write : {false, true})
    for (const std::string sql :
         {"SELECT hex(fts3_tokenizer('simple'))", "SELECT fts3_tokenizer('simple', x'4141414141414141')",
          "SELECT fts5(NULL)", "SELECT load_extension('libc.so.6')"}) {
      SCOPED_TRACE(sql);
      EXPECT_THROW(RunSql(path, sql, write), UserError);
    }
}

// Before: `sql --write` could plant a trigger or a virtual table, or attach other files.
TEST(HostileDatabase, SqlWriteCannotPlantWhatOpeningRefuses) {
  TempDir dir;
  const std::string path = History(dir);
  for (const std::string& sql : std::vector<std::string>{
           "CREATE TRIGGER t AFTER INSERT ON trials BEGIN DELETE FROM runs; END",
           "CREATE VIRTUAL TABLE ft USING fts3(x)", "ATTACH DATABASE '" + dir.File("other.db") + "' AS other",
           "VACUUM INTO '" + dir.File("copy.db") + "'"}) {
    SCOPED_TRACE(sql);
    EXPECT_THROW(RunSql(path, sql, true), UserError);
  }
  EXPECT_FALSE(fs::exists(dir.File("other.db")));
  EXPECT_FALSE(fs::exists(dir.File("copy.db")));
  EXPECT_EQ(std::get<int64_t>(RunSql(path, "SELECT count(*) FROM trials", false).rows.at(0).at(0)), 2);
}

// Before: a 1 GB value was built in memory on request.
TEST(HostileDatabase, ValuesAreLimitedInLength) {
  TempDir dir;
  const std::string path = History(dir);
  EXPECT_THROW(RunSql(path, "SELECT length(zeroblob(100000000))", false), UserError);
  EXPECT_EQ(std::get<int64_t>(RunSql(path, "SELECT length(zeroblob(1000))", false).rows.at(0).at(0)), 1000);
}

}  // namespace
}  // namespace tt
