// `tensortune import`: AutoTVM and TopHub logs into the history, all or nothing per call.
#include <gtest/gtest.h>

#include <fstream>

#include "history/sqlite_history_store.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;
const std::string kTopHub = std::string(TT_SHARED_DIR) + "/data/tophub/";
const std::string kSample = std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log";

std::string Line(const std::string& path, int number) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < number; ++i) std::getline(in, line);
  return line;
}

TEST(ImportCommand, ImportsBothTopHubFilesWithCountsPerTaskAndOnlyOnce) {
  if (!std::filesystem::exists(kTopHub + "cuda_v0.10.log")) GTEST_SKIP() << "no TopHub logs at " << kTopHub;
  ScratchDir dir;
  const std::string import = kProgram + " import " + kTopHub + "cuda_v0.10.log " + kTopHub +
                             "opencl_v0.04.log --db " + (dir.path() / "h.db").string();
  const auto r = RunProgram(import, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cuda_v0.10.log: 825 records: 625 imported, 0 already present, 200 skipped, 0 bad"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  depthwise_conv2d_nchw.cuda: 97 imported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  conv2d_nchw_winograd.cuda: 0 imported, 0 already present, 95 skipped"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("opencl_v0.04.log: 97 records: 64 imported"), std::string::npos) << r.out;

  const auto again = RunProgram(import, dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("825 records: 0 imported, 625 already present"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("97 records: 0 imported, 64 already present"), std::string::npos) << again.out;
}

TEST(ImportCommand, ATruncatedLineRefusesTheImportWithItsLineNumber) {
  ScratchDir dir;
  const auto log = dir.path() / "cut.log";
  {
    std::ofstream out(log);
    out << "# a comment\n" << Line(kSample, 1) << "\n" << Line(kSample, 2).substr(0, 80) << "\n" << Line(kSample, 3) << "\n";
  }
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " import " + log.string() + " --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(log.string() + ":3: not valid JSON (truncated?)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));

  const auto skipped = RunProgram(kProgram + " import --skip-bad " + log.string() + " --db " + db.string(), dir.path());
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.err.find(":3: not valid JSON"), std::string::npos) << skipped.err;
  EXPECT_NE(skipped.out.find("3 records: 2 imported, 0 already present, 0 skipped, 1 bad"), std::string::npos)
      << skipped.out;
}

TEST(ImportCommand, AMissingFileIsBadInput) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " import /nonexistent.log --db " + (dir.path() / "h.db").string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read /nonexistent.log"), std::string::npos) << r.err;
  const auto directory = RunProgram(kProgram + " import " + dir.path().string() + " --db " + (dir.path() / "h.db").string(), dir.path());
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos) << directory.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "h.db"));
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

// A Kernel Tuner cache of a GEMM-like kernel on a GPU we do not have: imported as a
// user-defined space and replayed by every tuner.
TEST(ImportCommand, AKernelTunerCacheImportsAndEveryTunerReplaysIt) {
  ScratchDir dir;
  const std::string db = (dir.path() / "h.db").string();
  const std::string cache = std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json";
  const auto r = RunProgram(kProgram + " import " + cache + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("396 records: 396 imported"), std::string::npos) << r.out;
  EXPECT_NE(RunProgram(kProgram + " import " + cache + " --db " + db, dir.path()).out.find("396 already present"),
            std::string::npos);

  const auto c = RunProgram(kProgram + " compare --space matmul_kernel --tuners opevo,ga,xgb,random,grid,gbfs,bo"
                                       " --seeds 2 --trials 400 --db " + db,
                            dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("on NVIDIA A100-PCIE-40GB: 396 recorded configs (331 ok)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("Recorded 396 of 396 valid configs of the space (100%)"), std::string::npos) << c.out;
  for (const char* tuner : {"| opevo |", "| ga |", "| xgb |", "| random |", "| grid |", "| gbfs |", "| bo |"}) {
    const auto row = c.out.find(tuner);
    ASSERT_NE(row, std::string::npos) << tuner << "\n" << c.out;
    // 400 trials exhaust the 396 configurations: every seed reaches the best.
    EXPECT_NE(c.out.substr(row, c.out.find('\n', row) - row).find("(2/2) |"), std::string::npos) << c.out;
  }
}

TEST(ImportCommand, ATruncatedKernelTunerCacheIsRefusedWithItsLine) {
  ScratchDir dir;
  const auto cut = dir.path() / "cut.json";
  {
    std::ifstream in(std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut) << text.substr(0, 5000);
  }
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " import " + cut.string() + " --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(cut.string() + ": line "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace tt
