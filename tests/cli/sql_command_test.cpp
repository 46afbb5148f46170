// `tensortune sql`: read-only unless --write, in three output formats.
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

}  // namespace
}  // namespace tt
