#include "history/sql_query.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <cctype>

#include "core/errors.h"
#include "history/database_file.h"

namespace tt {
namespace {

bool OnlyBlanksAndSemicolons(const char* tail) {
  for (; tail && *tail; ++tail)
    if (!std::isspace(static_cast<unsigned char>(*tail)) && *tail != ';') return false;
  return true;
}

SqlValue Value(SQLite::Column column) {
  switch (column.getType()) {
    case SQLITE_INTEGER: return column.getInt64();
    case SQLITE_FLOAT: return column.getDouble();
    case SQLITE_NULL: return std::monostate{};
    default: return column.getString();
  }
}

}  // namespace

SqlResult RunSql(const std::string& db_path, const std::string& sql, bool allow_writes) {
  auto db = allow_writes ? OpenDatabaseFile(db_path) : OpenDatabaseReadOnly(db_path);
  // Checked with the C API because SQLiteCpp neither exposes the unparsed tail nor
  // sqlite3_stmt_readonly.
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db->getHandle(), sql.c_str(), static_cast<int>(sql.size()) , &raw, &tail) != SQLITE_OK)
    throw UserError(std::string("SQL: ") + sqlite3_errmsg(db->getHandle()));
  const bool empty = raw == nullptr, writes = raw && !sqlite3_stmt_readonly(raw);
  sqlite3_finalize(raw);
  if (empty) throw UserError("SQL: no statement given");
  if (!OnlyBlanksAndSemicolons(tail)) throw UserError("SQL: give one statement at a time");
  if (writes && !allow_writes)
    throw UserError("SQL: this statement would change the database, which `tensortune sql` opens read-only; "
                    "pass --write to allow it");
  try {
    SQLite::Statement q(*db, sql);
    SqlResult result;
    for (int i = 0; i < q.getColumnCount(); ++i) result.columns.emplace_back(q.getColumnName(i));
    while (q.executeStep()) {
      auto& row = result.rows.emplace_back();
      for (int i = 0; i < q.getColumnCount(); ++i) row.push_back(Value(q.getColumn(i)));
    }
    result.changes = writes ? db->getChanges() : 0;
    return result;
  } catch (const SQLite::Exception& e) {
    throw UserError(std::string("SQL: ") + e.what());
  }
}

}  // namespace tt
