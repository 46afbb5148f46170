#pragma once
// `tensortune sql`: one SQL statement on a history database, read-only unless --write.
#include <iosfwd>
#include <string>

namespace tt {

struct SqlOptions {
  std::string db;
  std::string sql;
  std::string format = "table";  // table | csv | json
  bool write = false;
  double timeout_s = 3600;  // a statement still running after this is stopped (exit 2)
};

int RunSqlCommand(const SqlOptions& options, std::ostream& out);

}  // namespace tt
