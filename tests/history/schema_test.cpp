// The schema people read (schema/schema.sql) must be what the migrations build.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "history/history_test_support.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

// Comments and layout are for people; what SQLite stores is compared without them.
std::string NormaliseSql(std::string sql) {
  sql = std::regex_replace(sql, std::regex("--[^\n]*"), "");
  sql = std::regex_replace(sql, std::regex(R"(/\*[\s\S]*?\*/)"), "");
  sql = std::regex_replace(sql, std::regex(R"(\s+)"), " ");
  sql = std::regex_replace(sql, std::regex(R"(\s*([(),;=])\s*)"), "$1");
  return std::regex_replace(sql, std::regex(R"(^\s+|\s+$)"), "");
}

std::vector<std::string> SchemaOf(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
  std::vector<std::string> rows;
  while (q.executeStep())
    rows.push_back(q.getColumn(0).getString() + " " + q.getColumn(1).getString() + " on " + q.getColumn(2).getString() +
                   ": " + NormaliseSql(q.getColumn(3).getString()));
  rows.push_back("application_id " + db.execAndGet("PRAGMA application_id").getString());
  return rows;
}

TEST(HistorySchema, NormaliseSqlIgnoresCommentsAndLayoutOnly) {
  EXPECT_EQ(NormaliseSql("CREATE TABLE t (  -- note\n  a INT ,\n  b /* x */ TEXT\n)"), "CREATE TABLE t(a INT,b TEXT)");
  EXPECT_NE(NormaliseSql("CREATE TABLE t (a INT)"), NormaliseSql("CREATE TABLE t (a TEXT)"));
}

TEST(HistorySchema, MigrationsGiveTheDocumentedSchema) {
  testing::TempDir dir;
  const std::string migrated = dir.File("migrated.db");
  SqliteHistoryStore::Open(migrated).reset();

  const std::string documented = dir.File("documented.db");
  {
    SQLite::Database db(documented, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    const std::string schema = testing::ReadBytes(std::string(TT_SOURCE_DIR) + "/schema/schema.sql");
    ASSERT_FALSE(schema.empty());
    db.exec(schema);
  }
  const std::vector<std::string> expected = SchemaOf(documented);
  EXPECT_GT(expected.size(), 5u);
  EXPECT_EQ(SchemaOf(migrated), expected);
}

TEST(HistorySchema, MigrationFilesAreNumberedFromOneWithoutGaps) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(TT_SOURCE_DIR) / "migrations"))
    if (entry.path().extension() == ".sql") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(static_cast<int>(names.size()), SqliteHistoryStore::LatestSchemaVersion());
  for (size_t i = 0; i < names.size(); ++i) {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%04zu_", i + 1);
    EXPECT_EQ(names[i].substr(0, 5), prefix) << names[i];
  }
}

}  // namespace
}  // namespace tt
