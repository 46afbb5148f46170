// `compare --warm-from`: a device's recorded space replayed cold and warm-started from another
// device's records of the same kernel. The data are trimmed samples (352 configurations each)
// of the benchmark hub's convolution kernel on an NVIDIA RTX A4000 and an AMD Radeon PRO W6600.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;
const std::string kData = std::string(TT_SOURCE_DIR) + "/tests/data/";

std::string ImportBoth(const ScratchDir& dir) {
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + kData + "kernel_tuner_convolution_A4000_sample.json " + kData +
                                "kernel_tuner_convolution_W6600_sample.json --db " + db,
                            dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return db;
}

TEST(CompareWarmFrom, ReplaysEachTunerColdAndWarmAndReportsTheGain) {
  ScratchDir dir;
  const std::string db = ImportBoth(dir);
  const std::string runs = (dir.path() / "runs.jsonl").string();
  const auto r = RunProgram(kProgram +
                                " compare --space convolution_kernel --device W6600 --warm-from A4000"
                                " --tuners bo,random --seeds 4 --trials 60 --runs-out " +
                                runs + " --db " + db,
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Warm start from NVIDIA RTX A4000 (similarity 0."), std::string::npos) << r.out;
  for (const char* row : {"| bo |", "| bo warm |", "| random |"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  // random cannot use the records, and says so instead of replaying its cold run again.
  EXPECT_EQ(r.out.find("| random warm |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("random cannot use warm-start records"), std::string::npos) << r.out;
  const auto gain = r.out.find("  bo: ");
  ASSERT_NE(gain, std::string::npos) << r.out;
  // The A4000's best configurations are a knob away from the W6600's: warm is much faster.
  double cold = 0, warm = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + gain, "  bo: %lf -> %lf", &cold, &warm), 2) << r.out.substr(gain);
  EXPECT_LT(2 * warm, cold) << r.out;
  // Every run, cold and warm, is one JSON line.
  std::ifstream in(runs);
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    ++lines;
    EXPECT_NE(line.find("\"device\":\"AMD Radeon PRO W6600\""), std::string::npos) << line;
  }
  EXPECT_EQ(lines, (2 + 1) * 4);
}

// The row of `tuner` in compare's table, without its label: the cells alone.
std::string RowCells(const std::string& out, const std::string& tuner) {
  const auto at = out.find("| " + tuner + " |");
  if (at == std::string::npos) return "";
  const auto cells = at + tuner.size() + 3;
  return out.substr(cells, out.find('\n', cells) - cells);
}

// Every tuner that takes a warm start uses it: its warm replay differs from its cold one and,
// on this pair (the A4000's best configurations a knob away from the W6600's), reaches 95% of
// the optimum in no more trials (median over fixed seeds: deterministic).
TEST(CompareWarmFrom, EveryTunerThatTakesAWarmStartGainsFromIt) {
  ScratchDir dir;
  const std::string db = ImportBoth(dir);
  const std::vector<std::string> tuners{"xgb", "opevo", "ga", "gbfs", "gga", "xgb-tl"};
  std::string list;
  for (const auto& t : tuners) list += (list.empty() ? "" : ",") + t;
  const auto r =
      RunProgram(kProgram + " compare --space convolution_kernel --device W6600 --warm-from A4000 --tuners " + list +
                     " --seeds 4 --trials 60 --db " + db,
                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& tuner : tuners) {
    const std::string cold = RowCells(r.out, tuner), warm = RowCells(r.out, tuner + " warm");
    ASSERT_FALSE(cold.empty() || warm.empty()) << tuner << "\n" << r.out;
    EXPECT_NE(cold.substr(0, cold.rfind(" | ")), warm.substr(0, warm.rfind(" | "))) << tuner;  // overhead aside
    const auto gain = r.out.find("  " + tuner + ": ");
    ASSERT_NE(gain, std::string::npos) << tuner << "\n" << r.out;
    char cold_text[16] = {}, warm_text[16] = {};
    ASSERT_EQ(std::sscanf(r.out.c_str() + gain + tuner.size() + 4, "%15s -> %15s", cold_text, warm_text), 2);
    ASSERT_STRNE(warm_text, "never") << tuner << "\n" << r.out;
    if (std::string(cold_text) != "never") {
      EXPECT_LE(std::stod(warm_text), std::stod(cold_text)) << tuner << r.out;
    }
  }
}

TEST(CompareWarmFrom, RefusesTheTunedDeviceAndUnknownOnes) {
  ScratchDir dir;
  const std::string db = ImportBoth(dir);
  const std::string base = kProgram +
                           " compare --space convolution_kernel --device W6600 --tuners bo --seeds 1"
                           " --trials 10 --db " +
                           db + " --warm-from ";
  auto r = RunProgram(base + "W6600", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("names the device being tuned"), std::string::npos) << r.err;
  r = RunProgram(base + "MI250", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no recorded device matches 'MI250'"), std::string::npos) << r.err;
  r = RunProgram(base + "auto", dir.path());  // the only other device
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Warm start from NVIDIA RTX A4000"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tt
