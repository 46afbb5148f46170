// `tensortune report`: one self-contained HTML page with a plot per tuned task.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::ReadFile;
using testing::RecordSyntheticSpace;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportCommand, WritesBestConfigStatusMixAndConvergencePlotPerTask) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 12, &best);
  const std::string sample = std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log";
  ASSERT_EQ(RunProgram(kProgram + " import " + sample + " --db " + db, dir.path()).exit_code, 0);
  const auto page = dir.path() / "report.html";
  const auto r = RunProgram(kProgram + " report --db " + db + " --out " + page.string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // One inline script (table sorting), nothing loaded from elsewhere.
  EXPECT_EQ(Count(html, "<script"), 1u);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  // The GEMM run has a convergence, and makes the one point of its device's roofline (whose
  // peak is unknown: no roof drawn); TopHub's single records go to the table.
  EXPECT_EQ(Count(html, "<svg"), 2u);
  EXPECT_EQ(Count(html, "<polyline"), 1u);
  EXPECT_EQ(Count(html, "class=\"point\""), 1u);
  EXPECT_NE(html.find("compute peak unknown"), std::string::npos);
  // No network run and one task with a convergence: its section is open, not folded.
  EXPECT_NE(html.find("<details class=\"task\" open>"), std::string::npos);
  EXPECT_NE(html.find("run 1 synthetic"), std::string::npos);
  EXPECT_NE(html.find(fmt::format("<b>{:.2f} GFLOPS</b>", best)), std::string::npos);
  EXPECT_NE(html.find("ok 12"), std::string::npos);
  EXPECT_NE(html.find("Tasks without a convergence to plot"), std::string::npos);
  EXPECT_NE(html.find("(imported)"), std::string::npos);

  const auto one = RunProgram(kProgram + " report --run 1 --db " + db + " --out " + page.string(), dir.path());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("1 tasks, 12 trials"), std::string::npos) << one.out;
}

TEST(ReportCommand, RefusesAMissingDatabaseAndAnEmptySelection) {
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 3, &best);
  const auto page = dir.path() / "report.html";
  auto r = RunProgram(kProgram + " report --db " + (dir.path() / "none.db").string() + " --out " + page.string(),
                      dir.path());
  EXPECT_EQ(r.exit_code, 2);
  r = RunProgram(kProgram + " report --run 99 --db " + db + " --out " + page.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no trials"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(page));
}

}  // namespace
}  // namespace tt
