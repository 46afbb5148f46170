#pragma once
// Plain SQL on a history database, for `tensortune sql`: read-only unless writes are asked for.
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace tt {

using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;  // NULL, integer, real, text/blob

struct SqlResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
  int64_t changes = 0;  // rows changed by a writing statement
};

// Runs one SQL statement, handing over its column names once (none for a statement without
// result columns) and then each row as SQLite steps to it, so that a result of any size costs
// no memory; returns the number of rows changed by a writing statement.
//
// The statement is checked before the database is opened for it: syntax, one statement only,
// nothing that writes unless `allow_writes` (then the database is opened, created and migrated
// like by any writing command), and nothing tensortune refuses to run on a history: SQLite's
// pointer-passing functions (fts3_tokenizer, fts5), extensions, ATTACH and VACUUM INTO (files
// elsewhere), triggers and virtual tables. A refused statement leaves no file behind.
// A writing statement runs in a transaction that is rolled back, and refused, when it would
// leave a database tensortune refuses (schema changes to tensortune's own tables, views and
// indexes, another schema version). A statement still running after `timeout_s` seconds (0:
// no limit) is stopped.
// Throws UserError for those and for an unusable database file, EnvironmentError when the
// database stays locked by another process or the disk fails.
int64_t StreamSql(const std::string& db_path, const std::string& sql, bool allow_writes,
                  const std::function<void(const std::vector<std::string>&)>& on_columns,
                  const std::function<void(const std::vector<SqlValue>&)>& on_row, double timeout_s = 0);

// The same, the whole result in memory.
SqlResult RunSql(const std::string& db_path, const std::string& sql, bool allow_writes, double timeout_s = 0);

}  // namespace tt
