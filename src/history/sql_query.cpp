#include "history/sql_query.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <strings.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/errors.h"
#include "history/database_file.h"

namespace tt {
namespace {

constexpr int kMaxStatementBytes = 1 << 20;
constexpr sqlite3_int64 kHeapLimitBytes = sqlite3_int64{1} << 30;  // what one statement may allocate

bool OnlyBlanksAndSemicolons(const char* tail) {
  for (; tail && *tail; ++tail)
    if (!std::isspace(static_cast<unsigned char>(*tail)) && *tail != ';') return false;
  return true;
}

SqlValue Value(sqlite3_stmt* q, int i) {
  switch (sqlite3_column_type(q, i)) {
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(q, i));
    case SQLITE_FLOAT:
      return sqlite3_column_double(q, i);
    case SQLITE_NULL:
      return std::monostate{};
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(q, i));
      return std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(q, i)));
    }
  }
}

// What a user's statement may not do, on top of every connection's defences.
int AuthorizeUserStatement(void*, int action, const char* first, const char* second, const char*, const char*) {
  switch (action) {
    case SQLITE_FUNCTION:
      if (second && (strcasecmp(second, "fts3_tokenizer") == 0 || strcasecmp(second, "fts5") == 0 ||
                     strcasecmp(second, "load_extension") == 0))
        return SQLITE_DENY;
      return SQLITE_OK;
    case SQLITE_ATTACH:  // also VACUUM INTO: a file elsewhere; plain VACUUM names none
      return first && *first ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_DETACH:
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_TEMP_TRIGGER:
    case SQLITE_CREATE_VTABLE:
      return SQLITE_DENY;
    default:
      return SQLITE_OK;
  }
}

void Restrict(SQLite::Database& db) {
  sqlite3* handle = db.getHandle();
  sqlite3_set_authorizer(handle, AuthorizeUserStatement, nullptr);
  sqlite3_limit(handle, SQLITE_LIMIT_SQL_LENGTH, kMaxStatementBytes);
  sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0);
}

// The progress handler's clock: a statement running past `at` is interrupted.
struct Deadline {
  std::chrono::steady_clock::time_point at;
  bool passed = false;
};

int PastDeadline(void* data) {
  auto* deadline = static_cast<Deadline*>(data);
  if (std::chrono::steady_clock::now() < deadline->at) return 0;
  deadline->passed = true;
  return 1;
}

// A statement that begins or ends transactions itself, or cannot run inside one (VACUUM).
bool ControlsTransactions(const std::string& sql) {
  size_t start = 0;
  while (start < sql.size() && std::isspace(static_cast<unsigned char>(sql[start]))) ++start;
  size_t end = start;
  while (end < sql.size() && std::isalpha(static_cast<unsigned char>(sql[end]))) ++end;
  std::string word = sql.substr(start, end - start);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word == "BEGIN" || word == "COMMIT" || word == "END" || word == "ROLLBACK" || word == "SAVEPOINT" ||
         word == "RELEASE" || word == "VACUUM";
}

struct Prepared {
  sqlite3_stmt* statement = nullptr;
  ~Prepared() { sqlite3_finalize(statement); }
};

bool IsEnvironmentCode(int code) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_NOMEM:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void Fail(int code, const std::string& message, const std::string& path) {
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
    throw EnvironmentError("database " + path + ": locked by another process (" + message + ")");
  if (IsEnvironmentCode(code)) throw EnvironmentError("database " + path + ": " + message);
  throw UserError("SQL: " + message);
}

[[noreturn]] void Fail(sqlite3* db, int code, const std::string& path) { Fail(code, sqlite3_errmsg(db), path); }

// Syntax, one statement, and what it does: checked on a connection that writes nothing.
// Returns whether the statement would write.
bool Check(SQLite::Database& db, const std::string& sql, const std::string& path) {
  Restrict(db);
  Prepared p;
  const char* tail = nullptr;
  const int code = sqlite3_prepare_v2(db.getHandle(), sql.c_str(), static_cast<int>(sql.size()), &p.statement, &tail);
  if (code != SQLITE_OK) Fail(db.getHandle(), code, path);
  if (p.statement == nullptr) throw UserError("SQL: no statement given");
  if (!OnlyBlanksAndSemicolons(tail)) throw UserError("SQL: give one statement at a time");
  return !sqlite3_stmt_readonly(p.statement);
}

// A writing statement is checked against this build's schema (the database may not exist
// yet, or be of an older version), and against the file itself for tables of the user's own.
void CheckForWriting(const std::string& path, const std::string& sql) {
  try {
    Check(*OpenReferenceSchema(), sql, path);
    return;
  } catch (const UserError&) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw;
  }
  CheckDatabaseToRead(path, /*same_version=*/false);
  Check(*OpenDatabaseForInspection(path), sql, path);
}

}  // namespace

int64_t StreamSql(const std::string& db_path, const std::string& sql, bool allow_writes,
                  const std::function<void(const std::vector<std::string>&)>& on_columns,
                  const std::function<void(const std::vector<SqlValue>&)>& on_row, double timeout_s) {
  if (sql.size() > static_cast<size_t>(kMaxStatementBytes))
    throw UserError("SQL: the statement is longer than " + std::to_string(kMaxStatementBytes) + " bytes");
  if (allow_writes) {
    CheckForWriting(db_path, sql);
  } else {
    CheckDatabaseToRead(db_path, /*same_version=*/false);
    if (Check(*OpenDatabaseForInspection(db_path), sql, db_path))
      throw UserError(
          "SQL: this statement would change the database, which `tensortune sql` opens read-only; "
          "pass --write to allow it");
  }
  sqlite3_hard_heap_limit64(kHeapLimitBytes);
  const auto db = allow_writes ? OpenDatabaseFile(db_path) : OpenDatabaseReadOnly(db_path);
  Restrict(*db);
  sqlite3* handle = db->getHandle();
  if (!allow_writes) sqlite3_db_config(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  Deadline deadline;
  if (timeout_s > 0) {
    deadline.at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(timeout_s));
    sqlite3_progress_handler(handle, 10'000, PastDeadline, &deadline);
  }
  Prepared p;
  int code = sqlite3_prepare_v2(handle, sql.c_str(), static_cast<int>(sql.size()), &p.statement, nullptr);
  if (code != SQLITE_OK) Fail(handle, code, db_path);
  // A write runs in a transaction that is rolled back when it leaves a database tensortune
  // refuses (a dropped view, a unique index on trials, another schema version).
  const bool guarded = !sqlite3_stmt_readonly(p.statement) && !ControlsTransactions(sql);
  if (guarded && (code = sqlite3_exec(handle, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr)) != SQLITE_OK)
    Fail(handle, code, db_path);
  const auto fail = [&](int failed) {
    const std::string message = sqlite3_errmsg(handle);  // before the rollback resets it
    if (guarded) sqlite3_exec(handle, "ROLLBACK", nullptr, nullptr, nullptr);
    if (deadline.passed) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
      throw UserError(std::string("SQL: the statement ran longer than --timeout ") + seconds +
                      " s and was stopped (nothing it would have changed is kept)");
    }
    Fail(failed, message, db_path);
  };
  const int count = sqlite3_column_count(p.statement);
  std::vector<std::string> columns;
  for (int i = 0; i < count; ++i) columns.emplace_back(sqlite3_column_name(p.statement, i));
  on_columns(columns);
  std::vector<SqlValue> row(static_cast<size_t>(count));
  while ((code = sqlite3_step(p.statement)) == SQLITE_ROW) {
    for (int i = 0; i < count; ++i) row[static_cast<size_t>(i)] = Value(p.statement, i);
    on_row(row);
  }
  if (code != SQLITE_DONE) fail(code);
  const int64_t changes = sqlite3_stmt_readonly(p.statement) ? 0 : sqlite3_changes64(handle);
  if (guarded) {
    std::optional<std::string> why;
    try {
      why = WhySchemaRefused(*db);
    } catch (const SQLite::Exception& e) {
      why = std::string("its schema cannot be read (") + e.what() + ")";
    }
    if (why) {
      sqlite3_exec(handle, "ROLLBACK", nullptr, nullptr, nullptr);
      throw UserError("SQL: refused, and nothing changed: after this statement tensortune would refuse " + db_path +
                      " (" + *why + ")");
    }
    if ((code = sqlite3_exec(handle, "COMMIT", nullptr, nullptr, nullptr)) != SQLITE_OK) fail(code);
  }
  return changes;
}

SqlResult RunSql(const std::string& db_path, const std::string& sql, bool allow_writes, double timeout_s) {
  SqlResult result;
  result.changes = StreamSql(
      db_path, sql, allow_writes, [&](const std::vector<std::string>& columns) { result.columns = columns; },
      [&](const std::vector<SqlValue>& row) { result.rows.push_back(row); }, timeout_s);
  return result;
}

}  // namespace tt
