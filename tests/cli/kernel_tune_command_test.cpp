// End to end: `tensortune tune --kernel SPEC.json`, a user's kernel on the default OpenCL device.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

const std::string kProgram = TENSORTUNE_BIN;
const std::string kSpec = std::string(TT_SOURCE_DIR) + "/tests/data/user_kernel/vector_add.json";

TEST(KernelTuneCommand, MeasuresEveryConfigOnceAndCatchesTheWrongOne) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const std::string tune =
      kProgram + " tune --kernel " + kSpec + " --tuner random --batch-size 2 --json --db " + db.string();
  const auto first = RunProgram(tune, dir.path());
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const auto summary = nlohmann::json::parse(first.out);
  EXPECT_EQ(summary["measured"], 4);
  EXPECT_EQ(summary["statuses"]["ok"], 3);
  EXPECT_EQ(summary["statuses"]["wrong_answer"], 1);  // block_size_x=64 subtracts
  EXPECT_EQ(summary["workload"], "kernel_tuner:p0=1000");
  ASSERT_FALSE(summary["best"].is_null());
  EXPECT_GT(summary["best"]["time_ms"].get<double>(), 0);
  EXPECT_EQ(Sql(db, "SELECT status FROM trials WHERE config_key='block_size_x=64'"), "wrong_answer\n");
  // Kernel Tuner's seven timed runs per config.
  EXPECT_EQ(Sql(db, "SELECT DISTINCT json_array_length(times_json) FROM trials WHERE status='ok'"), "7\n");
  EXPECT_EQ(Sql(db, "SELECT op FROM workloads"), "kernel_tuner\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM user_spaces"), "1\n");

  // Again: nothing is measured twice; the run finds the space exhausted.
  const auto second = RunProgram(tune, dir.path());
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  const auto again = nlohmann::json::parse(second.out);
  EXPECT_EQ(again["measured"], 0);
  EXPECT_EQ(again["trials_in_history"], 4);
  EXPECT_TRUE(again["exhausted"].get<bool>());
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "4\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs"), "2\n");
}

TEST(KernelTuneCommand, ChecksAgainstAGivenAnswer) {
  ScratchDir dir;
  const auto spec = dir.path() / "spec.json";
  std::ofstream(spec) << R"({"kernel_name": "vector_add", "kernel_file": ")" << TT_SOURCE_DIR
                      << R"(/tests/data/user_kernel/vector_add.cl", "problem_size": 4,
    "arguments": [{"type": "float32", "size": 4}, {"type": "float32", "size": 4, "data": [1, 2, 3, 4]},
                  {"type": "float32", "size": 4, "data": [10, 20, 30, 40]}, {"type": "int32", "value": 4}],
    "answer": [[11, 22, 33, 44], null, null, null],
    "tune_params": {"block_size_x": [1, 2, 4, 64]}, "restrictions": ["block_size_x > 1"]})";
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " tune --kernel " + spec.string() + " --json --db " + db.string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["measured"], 3);  // block_size_x=1 is ruled out by the restriction
  EXPECT_EQ(summary["statuses"]["ok"], 2);
  EXPECT_EQ(summary["statuses"]["wrong_answer"], 1);
}

TEST(KernelTuneCommand, RefusesABadSpecWithoutWriting) {
  ScratchDir dir;
  const auto spec = dir.path() / "spec.json";
  std::ofstream(spec) << R"({"kernel_name": "k", "kernel_source": "__kernel void k() {}", "problem_size": 4,
    "arguments": [{"type": "int32", "value": 4}], "tune_params": {"a": [1, 2]}, "restrictions": "a >"})";
  const auto db = dir.path() / "h.db";
  testing::ExpectRefusal(RunProgram(kProgram + " tune --kernel " + spec.string() + " --db " + db.string(), dir.path()),
                         "restriction \"a >\"", db);
  testing::ExpectRefusal(
      RunProgram(kProgram + " tune --kernel " + (dir.path() / "none.json").string() + " --db " + db.string(),
                 dir.path()),
      "cannot read kernel spec", db);
}

}  // namespace
}  // namespace tt
