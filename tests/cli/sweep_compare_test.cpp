// sweep records a space; compare replays tuners on what a history recorded.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "history/sqlite_history_store.h"
#include "ops/matmul_templates.h"
#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RecordSyntheticSpace;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

TEST(SweepCommand, MeasuresEveryValidConfigOfASmallSpaceOnce) {
  ScratchDir dir;
  const auto db = (dir.path() / "h.db").string();
  // The selftest space has one config per behaviour: ok, crash, hang, wrong answer, compile error.
  const std::string sweep = "TENSORTUNE_DIAGNOSTICS=1 " + kProgram +
                            " sweep --op selftest --shape 64 --limit 10 --timeout 8 --min-time 0.01 --json --db " + db;
  const auto r = RunProgram(sweep, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["trials"], 5);
  EXPECT_EQ(summary["exhausted"], true);
  EXPECT_EQ(
      summary["statuses"],
      (nlohmann::json{{"ok", 1}, {"runtime_error", 1}, {"timeout", 1}, {"wrong_answer", 1}, {"compile_error", 1}}));

  // A timeout may be the machine's fault: the second sweep tries the hanging config once more
  // (and nothing else); after a second timeout it counts as hanging and a third finds nothing.
  const auto again = nlohmann::json::parse(RunProgram(sweep, dir.path()).out);
  EXPECT_EQ(again["trials"], 1);
  EXPECT_EQ(again["statuses"], (nlohmann::json{{"timeout", 1}}));
  const auto third = nlohmann::json::parse(RunProgram(sweep, dir.path()).out);
  EXPECT_EQ(third["trials"], 0);
  EXPECT_EQ(third["exhausted"], true);
}

TEST(SweepCommand, SamplesLargeSpacesUpToTheLimit) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " sweep --op gemm --shape 32,24,16 --limit 3 --min-time 0.01 --json --db " +
                                (dir.path() / "h.db").string(),
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["trials"], 3);
  EXPECT_EQ(summary["exhausted"], false);
}

// A fully recorded space cut out of a larger one with pins: the tuners search it as they would
// on the device, and every one finds the best within the budget.
TEST(CompareCommand, PrintsOneRowPerTunerAndEveryTunerFindsTheBestOfACompleteRecording) {
  ScratchDir dir;
  double best = 0;
  const std::vector<std::pair<std::string, std::string>> pins = {{"tile_x", "[1,2,4,2]"},
                                                                 {"tile_k", "[4,2,2]"},
                                                                 {"auto_unroll_max_step", "0"},
                                                                 {"local_a", "0"},
                                                                 {"local_b", "1"}};
  const std::string db = RecordSyntheticSpace(dir.path(), SIZE_MAX, &best, pins);
  std::string pin_args;
  for (const auto& [knob, value] : pins) pin_args += " --pin " + knob + "=" + value;
  const auto r = RunProgram(kProgram +
                                " compare --op gemm --shape 16,16,16 --tuners opevo,ga,xgb,random,grid,gbfs,bo"
                                " --seeds 3 --trials 100 --db " +
                                db + pin_args,
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("best recorded " + std::to_string(static_cast<int>(best)) + ".00 GFLOPS"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("valid configs of the space (100%)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  for (const char* tuner : {"| opevo |", "| ga |", "| xgb |", "| random |", "| grid |", "| gbfs |", "| bo |"}) {
    const auto row = r.out.find(tuner);
    ASSERT_NE(row, std::string::npos) << tuner << "\n" << r.out;
    const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
    // 100 trials exhaust the recorded points: the best is always reached, at @100 it is 100%.
    EXPECT_NE(line.find("| 100.0 [100.0-100.0] | "), std::string::npos) << line;
    EXPECT_NE(line.find("(3/3) |"), std::string::npos) << line;
  }
}

// A sample of a large space: said so, and unrecorded proposals cost trials as failed builds.
TEST(CompareCommand, WarnsWhenTheRecordingIsASample) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 60, &best);
  const auto r = RunProgram(
      kProgram + " compare --op gemm --shape 16,16,16 --tuners random --seeds 2 --trials 30 --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("60 recorded configs (60 ok)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Recorded 60 of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: the recording is a sample"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| random |"), std::string::npos) << r.out;
}

TEST(CompareCommand, RefusesWhatItCannotReplay) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 10, &best);
  struct Case {
    std::string args, message;
  };
  for (const Case& c : {Case{"--shape 16,16,16 --db " + (dir.path() / "none.db").string(), "no history database"},
                        Case{"--shape 32,16,16 --db " + db, "no trials of gemm:m=32,n=16,k=16"},
                        Case{"--shape 16,16,16 --tuners opevo,best --db " + db, "unknown tuner 'best'"},
                        Case{"--shape 16,16,16 --device gpu --db " + db, "no recorded device matches 'gpu'"}}) {
    const auto r = RunProgram(kProgram + " compare --op gemm " + c.args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << c.args << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "none.db"));
}

}  // namespace
}  // namespace tt
