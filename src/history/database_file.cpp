#include "history/database_file.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "core/errors.h"
#include "history/file_system.h"

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

bool IsBusy(const SQLite::Exception& e) {
  return (e.getErrorCode() & 0xff) == SQLITE_BUSY || (e.getErrorCode() & 0xff) == SQLITE_LOCKED;
}

int PragmaInt(SQLite::Database& db, const char* pragma) {
  return db.execAndGet(std::string("PRAGMA ") + pragma).getInt();
}

void CheckSchemaVersion(const std::string& path, int version) {
  if (version > EmbeddedSchemaVersion())
    Refuse(path, "written by a newer tensortune: schema version " + std::to_string(version) +
                     ", this build knows up to " + std::to_string(EmbeddedSchemaVersion()));
}

// The first 100 bytes of a SQLite file (https://www.sqlite.org/fileformat.html), when present.
std::optional<std::string> ReadHeader(const std::string& path) {
  std::string head(100, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (in.gcount() != static_cast<std::streamsize>(head.size())) return std::nullopt;
  return head;
}

uint32_t BigEndian(const std::string& bytes, size_t at, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

// A file cut short (a failed copy, a full disk) can still open and report its version, and
// writing would then extend it with zeros, so its length is checked against its header first.
// Only valid while no -wal file exists: a writer's pages may still be on their way.
std::optional<std::string> WhyTruncated(const std::string& header, uintmax_t file_size) {
  const uint32_t page_size = BigEndian(header, 16, 2) == 1 ? 65536 : BigEndian(header, 16, 2);
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0)
    return "its header is damaged (page size " + std::to_string(page_size) + ")";
  if (file_size % page_size != 0)
    return "it is truncated or damaged: " + std::to_string(file_size) + " bytes is not a whole number of " +
           std::to_string(page_size) + "-byte pages";
  const uint32_t pages = BigEndian(header, 28, 4);
  const bool pages_valid = BigEndian(header, 92, 4) == BigEndian(header, 24, 4);  // see "in-header database size"
  if (pages_valid && pages > 0 && uintmax_t{pages} * page_size > file_size)
    return "it is truncated: its header counts " + std::to_string(pages) + " pages, the file holds " +
           std::to_string(file_size / page_size);
  return std::nullopt;
}

// An absolute file: URI for `path`, so that no character of a path reads as a URI parameter.
std::string FileUri(const std::string& path, const std::string& parameters = "") {
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
  return parameters.empty() ? uri : uri + "?" + parameters;
}

// Whether a connection may create the -wal and -shm files beside `path`.
bool CanCreateBeside(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  struct statvfs fs_info {};
  if (statvfs(dir.c_str(), &fs_info) == 0 && (fs_info.f_flag & ST_RDONLY) != 0) return false;
  return access(dir.c_str(), W_OK | X_OK) == 0;
}

// fts3_tokenizer() hands out and takes function pointers, fts5() a pointer to its API: no
// statement tensortune runs, and none a user gives `sql`, may call them.
int DenyPointerFunctions(void*, int action, const char*, const char* function, const char*, const char*) {
  if (action == SQLITE_FUNCTION && function != nullptr &&
      (strcasecmp(function, "fts3_tokenizer") == 0 || strcasecmp(function, "fts5") == 0 ||
       strcasecmp(function, "load_extension") == 0))
    return SQLITE_DENY;
  return SQLITE_OK;
}

constexpr int kMaxValueBytes = 64 << 20;

SQLite::Database Hardened(SQLite::Database db) {
  HardenConnection(db);
  return db;
}

// Even a read-only connection creates -wal and -shm files beside a WAL database; an
// immutable one does not, and is exact while no -wal file shows that a writer is active.
SQLite::Database OpenForInspection(const std::string& path, bool writer_active) {
  if (writer_active)
    return Hardened(
        SQLite::Database(FileUri(path, "mode=ro"), SQLite::OPEN_READONLY | SQLite::OPEN_URI, kBusyTimeoutMs));
  return Hardened(SQLite::Database(FileUri(path, "mode=ro&immutable=1"), SQLite::OPEN_READONLY | SQLite::OPEN_URI));
}

// The schema objects of a database by name: type, table and SQL (whitespace runs as one space).
struct SchemaObject {
  std::string type, table, sql;
  bool operator==(const SchemaObject&) const = default;
};
using SchemaObjects = std::map<std::string, SchemaObject>;

std::string CollapseSpaces(const std::string& sql) {
  std::string out;
  for (const char c : sql) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

SchemaObjects ReadSchema(SQLite::Database& db) {
  SQLite::Statement q(db, "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master");
  SchemaObjects objects;
  while (q.executeStep())
    objects[q.getColumn(1).getString()] = {q.getColumn(0).getString(), q.getColumn(2).getString(),
                                           CollapseSpaces(q.getColumn(3).getString())};
  return objects;
}

// What migrations 1 to `version` create, built once per version in a database in memory.
const SchemaObjects& ReferenceSchema(int version) {
  static std::mutex mutex;
  static std::map<int, SchemaObjects> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto known = cache.find(version);
  if (known != cache.end()) return known->second;
  SQLite::Database memory(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (int v = 1; v <= version; ++v) memory.exec(std::string(embedded::migrations[v - 1].second));
  return cache[version] = ReadSchema(memory);
}

bool IsVirtualTable(const SchemaObject& object) {
  return object.type == "table" && strncasecmp(object.sql.c_str(), "CREATE VIRTUAL TABLE", 20) == 0;
}

// An index someone added to one of tensortune's tables is tolerated when it can change
// neither what an insert accepts nor what it costs: not unique, not partial, plain columns.
std::optional<std::string> WhyExtraIndexUnsafe(SQLite::Database& db, const std::string& name,
                                               const SchemaObject& index) {
  SQLite::Statement list(db, "SELECT \"unique\", partial FROM pragma_index_list(?) WHERE name = ?");
  list.bind(1, index.table);
  list.bind(2, name);
  if (!list.executeStep() || list.getColumn(0).getInt() != 0 || list.getColumn(1).getInt() != 0)
    return "a unique or partial index on table " + index.table + " (" + name + ") that tensortune did not create";
  SQLite::Statement columns(db,
                            "SELECT count(*) FROM pragma_index_xinfo(?) WHERE key = 1 AND (cid < 0 OR "
                            "coalesce(coll, 'BINARY') NOT IN ('BINARY', 'NOCASE', 'RTRIM'))");
  columns.bind(1, name);
  if (columns.executeStep() && columns.getColumn(0).getInt() != 0)
    return "an index on an expression of table " + index.table + " (" + name + ") that tensortune did not create";
  return std::nullopt;
}

// A tensortune database holds exactly what its migrations created, give or take tables and
// plain indexes of the user's own. Triggers (which would run inside tensortune's writes),
// virtual tables (modules reading pointers and files), and any of tensortune's tables, views
// and indexes replaced by something else are refused.
std::optional<std::string> WhySchemaDiffers(SQLite::Database& db, int version) {
  const SchemaObjects& reference = ReferenceSchema(version);
  const SchemaObjects actual = ReadSchema(db);
  const auto hint = std::string("; it is not as tensortune wrote it (remove it with the sqlite3 shell if it is yours)");
  for (const auto& [name, object] : actual) {
    if (object.type == "trigger") return "it holds a trigger (" + name + ")" + hint;
    if (IsVirtualTable(object)) return "it holds a virtual table (" + name + ")" + hint;
  }
  for (const auto& [name, want] : reference) {
    const auto it = actual.find(name);
    if (it == actual.end()) return "its " + want.type + " " + name + " is missing";
    if (it->second.type != want.type) return name + " is a " + it->second.type + " where tensortune has a " + want.type;
  }
  for (const auto& [name, want] : reference)
    if (!(actual.at(name) == want)) return "its " + want.type + " " + name + " is not defined as tensortune defines it";
  for (const auto& [name, object] : actual) {
    if (object.type != "index" || reference.count(name) || !reference.count(object.table)) continue;
    if (auto why = WhyExtraIndexUnsafe(db, name, object)) return "it holds " + *why + hint;
  }
  return std::nullopt;
}

// What makes an existing SQLite file unusable, found without writing a byte: a wrong length,
// another application's tables, a newer schema, or pages that fail SQLite's quick_check.
std::optional<std::string> WhyUnusable(const std::string& path, bool writer_active) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size == 0) return std::nullopt;  // empty: ours to fill
  const auto header = ReadHeader(path);
  if (!header || header->compare(0, 16, std::string_view("SQLite format 3\0", 16)) != 0) return "not a SQLite database";
  if (!writer_active)
    if (auto why = WhyTruncated(*header, size)) return why;
  try {
    SQLite::Database db = OpenForInspection(path, writer_active);
    const int application_id = PragmaInt(db, "application_id");
    const int user_version = PragmaInt(db, "user_version");
    const int objects = db.execAndGet("SELECT count(*) FROM sqlite_master").getInt();
    if (application_id != kApplicationId && (application_id != 0 || user_version != 0 || objects > 0))
      return "a SQLite database that is not a tensortune database";
    if (user_version > EmbeddedSchemaVersion())
      return "written by a newer tensortune: schema version " + std::to_string(user_version) +
             ", this build knows up to " + std::to_string(EmbeddedSchemaVersion());
    // Migration 1 sets the application id and version 1 in one transaction.
    if (application_id == kApplicationId && user_version < 1)
      return "its schema version " + std::to_string(user_version) + " is none that tensortune writes";
    if (user_version >= 1)
      if (auto why = WhySchemaDiffers(db, user_version)) return why;
    std::string check = db.execAndGet("PRAGMA quick_check(1)").getString();
    std::replace(check.begin(), check.end(), '\n', ' ');
    if (check != "ok") return "it is corrupt (" + check + ")";
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_BUSY) throw;  // not the file's fault
    if ((e.getErrorCode() & 0xff) == SQLITE_CORRUPT) return std::string("it is corrupt (") + e.what() + ")";
    return std::string("cannot read it: ") + e.what();
  }
  return std::nullopt;
}

// Size, modification time and whether a writer is active: when these stay the same across an
// inspection, its verdict is about the file, not about a write that happened meanwhile.
struct FileState {
  uintmax_t size = 0;
  fs::file_time_type modified;
  bool writer_active = false;
  bool operator==(const FileState&) const = default;
};

FileState StateOf(const std::string& path) {
  std::error_code ec;
  FileState state;
  state.size = fs::file_size(path, ec);
  state.modified = fs::last_write_time(path, ec);
  state.writer_active = fs::exists(path + "-wal", ec);
  return state;
}

// Refusing an existing file must write nothing, so it is inspected read-only first. A reader
// can see a page half written by another process's checkpoint, so a refusal stands only when
// two inspections 50 ms apart agree and the file did not change from the first to the second.
void CheckExistingFile(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) Refuse(path, "is a directory, not a database file");
  FileState state = StateOf(path);
  std::optional<std::string> previous;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const auto why = WhyUnusable(path, state.writer_active);
    if (!why) return;
    const FileState now = StateOf(path);
    if (why == previous && now == state) break;
    previous = why;
    state = now;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Refuse(path, *previous);
}

// Checked first because SQLite would report both as "unable to open database file".
void CheckNewFileDirectory(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::exists(dir, ec)) Refuse(path, "directory " + dir.string() + " does not exist");
  if (!fs::is_directory(dir, ec)) Refuse(path, dir.string() + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0) Refuse(path, "directory " + dir.string() + " is not writable");
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

// One connection set up for writing; throws SQLite::Exception, SQLITE_BUSY included. WAL mode
// is switched on after the migrations, so that a database refused while migrating is left as it
// was. URI names let `merge` attach its sources read-only.
std::unique_ptr<SQLite::Database> OpenForWriting(const std::string& path, bool create) {
  auto db = std::make_unique<SQLite::Database>(
      FileUri(path), SQLite::OPEN_READWRITE | SQLite::OPEN_URI | (create ? SQLite::OPEN_CREATE : 0), kBusyTimeoutMs);
  HardenConnection(*db);
  // SQLite silently falls back to read-only for a write-protected file.
  if (sqlite3_db_readonly(db->getHandle(), "main") == 1) Refuse(path, "file is not writable");
  Migrate(*db, path);  // before foreign keys: a migration may rebuild a referenced table
  // WAL's shared memory is not coherent across the hosts of a network file system (SQLite's
  // documentation): there, a rollback journal, which needs only the file locks.
  if (NetworkFileSystemOf(path)) {
    db->exec("PRAGMA journal_mode = DELETE");
    db->exec("PRAGMA synchronous = FULL");
  } else {
    db->exec("PRAGMA journal_mode = WAL");
    db->exec("PRAGMA synchronous = NORMAL");  // in WAL mode, still safe when a process dies
  }
  db->exec("PRAGMA foreign_keys = ON");
  return db;
}

}  // namespace

int CheckDatabaseToRead(const std::string& path, bool same_version) {
  std::error_code ec;
  if (!fs::exists(path, ec)) Refuse(path, "no such file");
  CheckExistingFile(path);
  int version = 0;
  try {
    SQLite::Database db = OpenForInspection(path, fs::exists(path + "-wal", ec));
    if (PragmaInt(db, "application_id") != kApplicationId) Refuse(path, "empty, not a tensortune database");
    version = PragmaInt(db, "user_version");
  } catch (const SQLite::Exception& e) {
    Refuse(path, std::string("cannot read it: ") + e.what());
  }
  if (same_version && version != EmbeddedSchemaVersion())
    Refuse(path, "schema version " + std::to_string(version) + ", this build writes " +
                     std::to_string(EmbeddedSchemaVersion()) + ": upgrade it first with `tensortune sql --write --db " +
                     path + " \"SELECT 1\"`");
  return version;
}

std::optional<std::string> WhySchemaRefused(SQLite::Database& db) {
  if (PragmaInt(db, "application_id") != kApplicationId) return "it would no longer be a tensortune database";
  const int version = PragmaInt(db, "user_version");
  if (version != EmbeddedSchemaVersion())
    return "its schema version would be " + std::to_string(version) + ", not " +
           std::to_string(EmbeddedSchemaVersion());
  return WhySchemaDiffers(db, version);
}

std::string ReadOnlyUri(const std::string& path) {
  std::error_code ec;
  const bool immutable = !fs::exists(path + "-wal", ec) && !CanCreateBeside(path);
  return FileUri(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
}

std::unique_ptr<SQLite::Database> OpenDatabaseReadOnly(const std::string& path) {
  CheckDatabaseToRead(path, /*same_version=*/false);
  try {
    auto db =
        std::make_unique<SQLite::Database>(ReadOnlyUri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI, kBusyTimeoutMs);
    HardenConnection(*db);
    db->execAndGet("SELECT count(*) FROM sqlite_master");  // opens the -wal now, so that failing to is reported here
    return db;
  } catch (const SQLite::Exception& e) {
    if (IsBusy(e)) throw EnvironmentError("database " + path + ": locked by another process: " + e.what());
    Refuse(path, std::string("cannot open it: ") + e.what());
  }
}

std::unique_ptr<SQLite::Database> OpenDatabaseForInspection(const std::string& path) {
  std::error_code ec;
  return std::make_unique<SQLite::Database>(OpenForInspection(path, fs::exists(path + "-wal", ec)));
}

std::unique_ptr<SQLite::Database> OpenReferenceSchema() {
  auto db = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (int v = 1; v <= EmbeddedSchemaVersion(); ++v) db->exec(std::string(embedded::migrations[v - 1].second));
  HardenConnection(*db);
  return db;
}

void HardenConnection(SQLite::Database& db) {
  sqlite3* handle = db.getHandle();
  // The schema stays trusted (SQLITE_DBCONFIG_TRUSTED_SCHEMA): tensortune's CHECK constraints call
  // json_valid(), which SQLite does not mark innocuous; what else a schema may run is checked
  // when the file is opened (WhySchemaDiffers).
  for (const int option : {SQLITE_DBCONFIG_DEFENSIVE, SQLITE_DBCONFIG_ENABLE_TRIGGER,
                           SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION}) {
    const int on = option == SQLITE_DBCONFIG_DEFENSIVE ? 1 : 0;
    int now = -1;
    if (sqlite3_db_config(handle, option, on, &now) != SQLITE_OK || now != on)
      throw EnvironmentError("this SQLite library cannot set the defences tensortune needs (sqlite3_db_config " +
                             std::to_string(option) + ")");
  }
  sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_set_authorizer(handle, DenyPointerFunctions, nullptr);
}

int EmbeddedSchemaVersion() { return static_cast<int>(embedded::migrations_count); }

// Runs started together on a new file race to set it up: switching to WAL answers SQLITE_BUSY
// at once, without waiting on the busy timeout, while another connection holds a lock. Busy
// is the other process's doing, so it is retried until the busy timeout has passed, then
// reported as an environment error, never as bad input.
std::unique_ptr<SQLite::Database> OpenDatabaseFile(const std::string& path) {
  if (path.empty()) throw UserError("database path is empty");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    try {
      std::error_code ec;
      const bool existed = fs::exists(path, ec);
      if (existed)
        CheckExistingFile(path);
      else
        CheckNewFileDirectory(path);
      return OpenForWriting(path, !existed);
    } catch (const SQLite::Exception& e) {
      const int code = e.getErrorCode() & 0xff;
      if (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_NOMEM)  // the disk's fault, not the file's
        throw EnvironmentError("database " + path + ": cannot open it for writing: " + e.what());
      if (!IsBusy(e)) Refuse(path, std::string("cannot open it for writing: ") + e.what());
      if (std::chrono::steady_clock::now() > deadline)
        throw EnvironmentError("database " + path + ": still locked by another process after " +
                               std::to_string(kBusyTimeoutMs / 1000) + " s: " + e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + 10 * std::min(attempt, 9)));
    }
  }
}

}  // namespace tt
