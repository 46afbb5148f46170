#include "history/database_file.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

#include "core/errors.h"

namespace tt::embedded {
extern const std::pair<std::string_view, std::string_view> migrations[];
extern const std::size_t migrations_count;
}  // namespace tt::embedded

namespace tt {
namespace {
namespace fs = std::filesystem;

constexpr int kApplicationId = 1414813006;  // "TTUN", set by migrations/0001_initial.sql
constexpr int kBusyTimeoutMs = 10'000;

[[noreturn]] void Refuse(const std::string& path, const std::string& problem) {
  throw UserError("database " + path + ": " + problem);
}

int PragmaInt(SQLite::Database& db, const char* pragma) {
  return db.execAndGet(std::string("PRAGMA ") + pragma).getInt();
}

void CheckSchemaVersion(const std::string& path, int version) {
  if (version > EmbeddedSchemaVersion())
    Refuse(path, "written by a newer tensortune: schema version " + std::to_string(version) +
                     ", this build knows up to " + std::to_string(EmbeddedSchemaVersion()));
}

bool HasSqliteMagic(const std::string& path) {
  static constexpr std::string_view kMagic{"SQLite format 3\0", 16};
  std::array<char, 16> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), head.size());
  return std::string_view(head.data(), static_cast<size_t>(in.gcount())) == kMagic;
}

std::string ImmutableUri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : fs::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?mode=ro&immutable=1";
}

// Even a read-only connection creates -wal and -shm files beside a WAL database; an
// immutable one does not, and is exact while no -wal file shows that a writer is active.
SQLite::Database OpenForInspection(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path + "-wal", ec))
    return SQLite::Database(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
  return SQLite::Database(ImmutableUri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
}

// Refusing an existing file must write nothing, so it is inspected read-only first.
void CheckExistingFile(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) Refuse(path, "is a directory, not a database file");
  if (fs::file_size(path, ec) > 0 && !ec && !HasSqliteMagic(path))
    Refuse(path, "not a SQLite database");
  try {
    SQLite::Database db = OpenForInspection(path);
    const int application_id = PragmaInt(db, "application_id");
    const int user_version = PragmaInt(db, "user_version");
    const int objects = db.execAndGet("SELECT count(*) FROM sqlite_master").getInt();
    if (application_id == kApplicationId)
      CheckSchemaVersion(path, user_version);
    else if (application_id != 0 || user_version != 0 || objects > 0)  // else empty: ours to fill
      Refuse(path, "a SQLite database that is not a tensortune database");
  } catch (const SQLite::Exception& e) {
    Refuse(path, std::string("cannot read it: ") + e.what());
  }
}

// Checked first because SQLite would report both as "unable to open database file".
void CheckNewFileDirectory(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec)) Refuse(path, "directory " + dir.string() + " does not exist");
  if (!fs::is_directory(dir, ec)) Refuse(path, dir.string() + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    Refuse(path, "directory " + dir.string() + " is not writable");
}

// Each migration commits together with its user_version, so a crash leaves a database at
// some version, never in between. IMMEDIATE makes a second process wait and then skip.
// Foreign keys are off while migrating (SQLite's procedure for rebuilding a table that others
// reference; the pragma is a no-op inside a transaction) and checked before each commit.
void Migrate(SQLite::Database& db, const std::string& path) {
  if (PragmaInt(db, "user_version") == EmbeddedSchemaVersion()) return;
  db.exec("PRAGMA foreign_keys = OFF");
  for (int version = 1; version <= EmbeddedSchemaVersion(); ++version) {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    const int current = PragmaInt(db, "user_version");
    CheckSchemaVersion(path, current);
    if (current >= version) continue;
    db.exec(std::string(embedded::migrations[version - 1].second));
    SQLite::Statement violations(db, "PRAGMA foreign_key_check");
    if (violations.executeStep())
      Refuse(path, "migration " + std::to_string(version) + " breaks a foreign key of table " +
                       violations.getColumn(0).getString());
    db.exec("PRAGMA user_version = " + std::to_string(version));
    transaction.commit();
  }
}

}  // namespace

void CheckDatabaseToRead(const std::string& path, bool same_version) {
  std::error_code ec;
  if (!fs::exists(path, ec)) Refuse(path, "no such file");
  CheckExistingFile(path);
  int version = 0;
  try {
    SQLite::Database db = OpenForInspection(path);
    if (PragmaInt(db, "application_id") != kApplicationId) Refuse(path, "empty, not a tensortune database");
    version = PragmaInt(db, "user_version");
  } catch (const SQLite::Exception& e) {
    Refuse(path, std::string("cannot read it: ") + e.what());
  }
  if (same_version && version != EmbeddedSchemaVersion())
    Refuse(path, "schema version " + std::to_string(version) + ", this build writes " +
                     std::to_string(EmbeddedSchemaVersion()) + ": upgrade it first with `tensortune sql --write --db " + path + " \"SELECT 1\"`");
}

std::unique_ptr<SQLite::Database> OpenDatabaseReadOnly(const std::string& path) {
  CheckDatabaseToRead(path, /*same_version=*/false);
  try {
    return std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY, kBusyTimeoutMs);
  } catch (const SQLite::Exception& e) {
    Refuse(path, std::string("cannot open it: ") + e.what());
  }
}

int EmbeddedSchemaVersion() { return static_cast<int>(embedded::migrations_count); }

std::unique_ptr<SQLite::Database> OpenDatabaseFile(const std::string& path) {
  if (path.empty()) throw UserError("database path is empty");
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  if (existed)
    CheckExistingFile(path);
  else
    CheckNewFileDirectory(path);
  try {
    const int create = existed ? 0 : SQLite::OPEN_CREATE;
    auto db =
        std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | create, kBusyTimeoutMs);
    // SQLite silently falls back to read-only for a write-protected file.
    if (sqlite3_db_readonly(db->getHandle(), "main") == 1) Refuse(path, "file is not writable");
    db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");  // in WAL mode, still safe when a process dies
    Migrate(*db, path);
    db->exec("PRAGMA foreign_keys = ON");
    return db;
  } catch (const SQLite::Exception& e) {
    Refuse(path, std::string("cannot open it for writing: ") + e.what());
  }
}

}  // namespace tt
