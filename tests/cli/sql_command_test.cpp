// `tensortune sql`: read-only unless --write, in three output formats, bounded in time,
// never driving the terminal, never leaving a database tensortune refuses.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RecordSyntheticSpace;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

TEST(SqlCommand, RefusesADeleteWithoutWriteAndPrintsEachFormat) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 5, &best);
  auto r = RunProgram(kProgram + " sql \"DELETE FROM trials\" --db " + db, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("opens read-only; pass --write"), std::string::npos) << r.err;

  r = RunProgram(kProgram + " sql \"SELECT tuner, trials FROM runs_view\" --json --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(R"([{"tuner":"synthetic","trials":5}])"));
  r = RunProgram(kProgram + " sql \"SELECT tuner, trials FROM runs_view\" --csv --db " + db, dir.path());
  EXPECT_EQ(r.out, "tuner,trials\nsynthetic,5\n");
  r = RunProgram(kProgram + " sql \"SELECT tuner, trials FROM runs_view\" --db " + db, dir.path());
  EXPECT_EQ(r.out, "tuner      trials\n---------  ------\nsynthetic  5\n");

  r = RunProgram(kProgram + " sql \"DELETE FROM trials\" --write --db " + db, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "5 rows changed\n");
}

// Before: an endless recursive CTE ran until Ctrl-C.
TEST(SqlCommand, AStatementPastItsTimeoutIsStopped) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 3, &best);
  const auto r =
      RunProgram(kProgram + " sql --timeout 0.5 --db " + db +
                     " \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c\"",
                 dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ran longer than --timeout 0.5 s"), std::string::npos) << r.err;
}

// Before: the escape bytes of a value reached the terminal as they were.
TEST(SqlCommand, TableOutputShowsControlCharactersInsteadOfSendingThem) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 3, &best);
  const auto r = RunProgram(
      kProgram + " sql --db " + db + " \"SELECT char(27) || '[2J' || char(13) || char(155) AS v\"", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b[2J\\x0d\\u009b"), std::string::npos) << r.out;
}

// Before: accepted, after which every command refused the database.
TEST(SqlCommand, WriteRefusesSchemaChangesToTensortunesOwnObjects) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 3, &best);
  for (const std::string& sql :
       {std::string("DROP VIEW best_per_task"), std::string("CREATE UNIQUE INDEX mine ON trials (id, run_id)"),
        std::string("PRAGMA user_version = 99"), std::string("ALTER TABLE runs RENAME TO old_runs")}) {
    SCOPED_TRACE(sql);
    const auto r = RunProgram(kProgram + " sql --write --db " + db + " \"" + sql + "\"", dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("tensortune would refuse"), std::string::npos) << r.err;
    const auto after = RunProgram(kProgram + " sql --db " + db + " \"SELECT count(*) FROM best_per_task\"", dir.path());
    EXPECT_EQ(after.exit_code, 0) << after.err;
  }
  // A statement that fails says why (before: "not an error", the rollback's message).
  const auto failed =
      RunProgram(kProgram + " sql --write --db " + db + " \"CREATE UNIQUE INDEX mine ON trials (run_id)\"", dir.path());
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_NE(failed.err.find("UNIQUE constraint failed"), std::string::npos) << failed.err;
  // Tables and plain indexes of the user's own stay allowed.
  for (const std::string& sql :
       {std::string("CREATE TABLE notes (x)"), std::string("CREATE INDEX by_run ON trials (run_id)")}) {
    const auto r = RunProgram(kProgram + " sql --write --db " + db + " \"" + sql + "\"", dir.path());
    EXPECT_EQ(r.exit_code, 0) << sql << r.err;
  }
}

}  // namespace
}  // namespace tt
