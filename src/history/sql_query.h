#pragma once
// Plain SQL on a history database, for `tensortune sql`: read-only unless writes are asked for.
#include <cstdint>
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

// Runs one SQL statement. Without `allow_writes` the database is opened read-only and a
// statement that would write is refused before it runs (UserError); with it, the database
// is opened (and migrated) like by any writing command. Throws UserError for bad SQL, more
// than one statement, or an unusable database file.
SqlResult RunSql(const std::string& db_path, const std::string& sql, bool allow_writes);

}  // namespace tt
