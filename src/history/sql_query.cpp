#include "history/sql_query.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <strings.h>

#include <cctype>
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

[[noreturn]] void Fail(sqlite3* db, int code, const std::string& path) {
  const std::string message = sqlite3_errmsg(db);
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
    throw EnvironmentError("database " + path + ": locked by another process (" + message + ")");
  if (IsEnvironmentCode(code)) throw EnvironmentError("database " + path + ": " + message);
  throw UserError("SQL: " + message);
}

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
                  const std::function<void(const std::vector<SqlValue>&)>& on_row) {
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
  Prepared p;
  int code = sqlite3_prepare_v2(handle, sql.c_str(), static_cast<int>(sql.size()), &p.statement, nullptr);
  if (code != SQLITE_OK) Fail(handle, code, db_path);
  const int count = sqlite3_column_count(p.statement);
  std::vector<std::string> columns;
  for (int i = 0; i < count; ++i) columns.emplace_back(sqlite3_column_name(p.statement, i));
  on_columns(columns);
  std::vector<SqlValue> row(static_cast<size_t>(count));
  while ((code = sqlite3_step(p.statement)) == SQLITE_ROW) {
    for (int i = 0; i < count; ++i) row[static_cast<size_t>(i)] = Value(p.statement, i);
    on_row(row);
  }
  if (code != SQLITE_DONE) Fail(handle, code, db_path);
  return sqlite3_stmt_readonly(p.statement) ? 0 : sqlite3_changes64(handle);
}

SqlResult RunSql(const std::string& db_path, const std::string& sql, bool allow_writes) {
  SqlResult result;
  result.changes = StreamSql(
      db_path, sql, allow_writes, [&](const std::vector<std::string>& columns) { result.columns = columns; },
      [&](const std::vector<SqlValue>& row) { result.rows.push_back(row); });
  return result;
}

}  // namespace tt
