// `tensortune report` of a small tuned network: the network first (latency, layers, anytime
// curve, time split, next steps), the roofline, a comparison of two databases, and the page
// rendered in headless chromium (tools/check-report.sh).
#include <gtest/gtest.h>

#include <fstream>

#include "run_program.h"

namespace tt {
namespace {

using testing::ReadFile;
using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

const std::string kProgram = TENSORTUNE_BIN;

// Two small GEMM layers, one repeated: quick to tune on a CPU.
std::filesystem::path TunedTinyNetwork(const std::filesystem::path& dir) {
  const auto net = dir / "tiny.json";
  std::ofstream(net) << R"({"name": "tiny", "layers": [
    {"name": "proj", "op": "gemm", "shape": "{batch*32},32,32", "repeat": 2},
    {"name": "head", "op": "gemm", "shape": "{batch*8},64,32"}]})";
  const auto db = dir / "h.db";
  const auto r = RunProgram(kProgram + " tune-network " + net.string() +
                                " --trials 16 --batch-size 4 --min-time 0.005 --tuner random --db " + db.string(),
                            dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Not a terminal: one plain progress line per round, with the rate and the latency.
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("\ntrials 16/16  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/min  ~"), std::string::npos) << r.out;
  return db;
}

TEST(ReportNetwork, PutsTheNetworkFirstWithLayersAnytimeCurveTimeSplitRooflineAndNextSteps) {
  ScratchDir dir;
  const auto db = TunedTinyNetwork(dir.path());
  const auto page = dir.path() / "report.html";
  const auto r = RunProgram(
      kProgram + " report --db " + db.string() + " --out " + page.string() + " --peak-gflops 250 --bandwidth-gbs 40",
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sql(db, "SELECT peak_gflops, bandwidth_gbs, source FROM device_peaks"), "250.0|40.0|user\n");
  const std::string html = ReadFile(page);
  const size_t network = html.find("<h2>tiny (batch 1) on ");
  ASSERT_NE(network, std::string::npos);
  EXPECT_LT(network, html.find("<h2>Roofline</h2>"));
  EXPECT_LT(html.find("<h2>Roofline</h2>"), html.find("<h2>Tasks</h2>"));
  for (const std::string part :
       {"estimated latency</span>", "untuned default</span>", "id=\"layers\"", "id=\"anytime-trials-1\"",
        "id=\"anytime-time-1\"", "id=\"time-split-1\"", "id=\"roofline-1\"", "% of peak", "compute peak 250.0 GFLOPS",
        "memory bandwidth 40.0 GB/s", "proj x2", "<details class=\"task\">", "<table class=\"sortable\">"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  // The commands to run the result, with this network file and this database.
  EXPECT_NE(html.find("tensortune export-kernels " + (dir.path() / "tiny.json").string() + " --db " + db.string() +
                      " --out tiny-pack"),
            std::string::npos);
  EXPECT_NE(html.find("tensortune run-network " + (dir.path() / "tiny.json").string() + " --pack tiny-pack"),
            std::string::npos);
  // Both layers tuned: a bar and a roofline point each, and their sketches with the reasons.
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM network_tasks WHERE sketch IS NOT NULL"), "2\n");
  size_t points = 0;
  for (size_t at = html.find("class=\"point\""); at != std::string::npos; at = html.find("class=\"point\"", at + 1))
    ++points;
  EXPECT_GE(points, 2u);

  // A later report reads the stored peak without being told.
  const auto again = RunProgram(kProgram + " report --db " + db.string() + " --out " + page.string(), dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(ReadFile(page).find("compute peak 250.0 GFLOPS"), std::string::npos);

  // Rendered in headless chromium: drawn, every chart present, nothing on the console.
  const auto check = RunProgram("bash " + std::string(TT_SOURCE_DIR) + "/tools/check-report.sh " + page.string() +
                                    " layers anytime-trials-1 anytime-time-1 time-split-1 roofline-1",
                                dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("OK:"), std::string::npos) << check.out;

  // The inline script sorts: a click on the layer table's "weight" puts head (weight 1) above
  // proj (weight 2), listed first in the network.
  std::string clicked = ReadFile(page);
  clicked.replace(clicked.rfind("</body>"), 7,
                  "<script>document.querySelectorAll('table.sortable th')[2].click();</script></body>");
  std::ofstream(dir.path() / "clicked.html") << clicked;
  const auto dom = RunProgram(
      "chromium --headless --no-sandbox --disable-gpu --dump-dom file://" + (dir.path() / "clicked.html").string(),
      dir.path());
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const size_t table = dom.out.find("<table class=\"sortable\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(dom.out.find("<tr><td>head</td>", table), dom.out.find("<tr><td>proj</td>", table));
  EXPECT_LT(html.find("<tr><td>proj</td>"), html.find("<tr><td>head</td>"));  // as written: network order
}

TEST(ReportNetwork, ComparesTwoDatabasesSideBySide) {
  ScratchDir dir;
  const auto db = TunedTinyNetwork(dir.path());
  const auto copy = dir.path() / "copy.db";
  std::filesystem::copy_file(db, copy);
  const auto page = dir.path() / "report.html";
  const auto r = RunProgram(
      kProgram + " report --db " + db.string() + " --db " + copy.string() + " --out " + page.string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(page);
  EXPECT_NE(html.find("<section id=\"compare\">"), std::string::npos);
  EXPECT_NE(html.find("<code>gemm:m=32,n=32,k=32</code>"), std::string::npos);
  EXPECT_NE(html.find("<td>1.00x</td>"), std::string::npos);  // the same database: no change
  EXPECT_NE(html.find("tiny on "), std::string::npos);
}

TEST(ReportNetwork, RefusesABadPeakAndAStrayDeviceWithNothingWritten) {
  ScratchDir dir;
  const auto db = TunedTinyNetwork(dir.path());
  const auto page = dir.path() / "report.html";
  auto r = RunProgram(kProgram + " report --db " + db.string() + " --out " + page.string() + " --peak-gflops -3",
                      dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--peak-gflops must be a positive number"), std::string::npos) << r.err;
  r = RunProgram(kProgram + " report --db " + db.string() + " --out " + page.string() + " --device cpu", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  r = RunProgram(kProgram + " report --db " + db.string() + " --out " + page.string() +
                     " --peak-gflops 10 --device no-such-device",
                 dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no device named 'no-such-device'"), std::string::npos) << r.err;
  // A report refused for its filters stores no peak either.
  r = RunProgram(kProgram + " report --run 99 --db " + db.string() + " --out " + page.string() + " --peak-gflops 10",
                 dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(page));
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM device_peaks"), "0\n");
}

}  // namespace
}  // namespace tt
