// End to end: the tensortune program on the default OpenCL device (POCL in CI).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "run_program.h"
#include "history/sqlite_history_store.h"

namespace tt {
namespace {

using testing::ReadFile;
using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

const std::string kProgram = TENSORTUNE_BIN;

TEST(TuneCommand, TunesSmallGemmAndRecordsEveryTrial) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const std::string tune = kProgram + " tune --op gemm --shape 48,40,24 --tuner random --trials 10 --batch-size 4"
                           " --min-time 0.01 --seed 7 --json --db " + db.string();
  const auto first = RunProgram(tune, dir.path());
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const auto summary = nlohmann::json::parse(first.out);
  EXPECT_EQ(summary["trials"], 10);
  ASSERT_FALSE(summary["best"].is_null());
  EXPECT_GT(summary["best"]["gflops"].get<double>(), 0);

  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "10\n");
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "finished\n");
  EXPECT_EQ(Sql(db, "SELECT count(DISTINCT batch) FROM trials"), "3\n");  // 4 + 4 + 2
  // Every ok trial was verified and timed at least once; failed ones carry no GFLOPS.
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials WHERE status='ok' AND (gflops<=0 OR json_array_length(times_json)<1)"),
            "0\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials WHERE status!='ok' AND gflops>0"), "0\n");
  EXPECT_EQ(Sql(db, "SELECT max(gflops) FROM trials") , Sql(db, "SELECT gflops FROM trials WHERE config_key='" +
                                                                 summary["best"]["config_key"].get<std::string>() + "'"));

  // The same command again measures 10 new configurations: history is never re-measured.
  const auto second = RunProgram(tune, dir.path());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "20\n");
  EXPECT_EQ(Sql(db, "SELECT count(DISTINCT config_key) FROM trials"), "20\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs"), "2\n");
}

// Two processes on one task with the same seed propose the same configs; the database's
// claims make each config measured by one of them only.
TEST(TuneCommand, TwoConcurrentRunsOnOneTaskNeverMeasureAConfigTwice) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const std::string tune = kProgram + " tune --op gemm --shape 32,32,32 --tuner random --trials 12 --batch-size 3"
                           " --min-time 0.005 --seed 5 --json --db " + db.string();
  const auto a = dir.path() / "a.txt", b = dir.path() / "b.txt";
  const auto r = RunProgram("(" + tune + " >" + a.string() + " 2>&1 & " + tune + " >" + b.string() + " 2>&1 & wait)",
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), "2\n") << ReadFile(a) << ReadFile(b);
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "24\n");
  EXPECT_EQ(Sql(db, "SELECT count(DISTINCT config_key) FROM trials"), "24\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM claims"), "0\n");
}

TEST(TuneCommand, PlainTextReportNamesBestConfigAndRun) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " tune --op gemm --shape 16,16,16 --trials 3 --min-time 0.01 --db " +
                                (dir.path() / "h.db").string(),
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 1: 3 trials"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best config: tile_x="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GFLOPS"), std::string::npos);
  EXPECT_NE(r.out.find("trials 3/3"), std::string::npos);  // plain progress lines when not a terminal
}

struct BadInput {
  const char* name;
  std::string args;
  const char* message;  // a fragment of the one-line error
};

class TuneRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(TuneRejects, WithOneClearLineAndNothingWritten) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " tune --trials 2 " + GetParam().args + " --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, TuneRejects,
    ::testing::Values(BadInput{"UnknownOperator", "--op convolution --shape 1,2,3", "unknown operator 'convolution'"},
                      BadInput{"MalformedShape", "--op gemm --shape 64,x,64", "malformed shape '64,x,64'"},
                      BadInput{"ShortShape", "--op gemm --shape 64,64", "malformed shape"},
                      BadInput{"UnknownDeviceIndex", "--op gemm --shape 8,8,8 --device 42", "unknown device '42'"},
                      BadInput{"UnknownDeviceName", "--op gemm --shape 8,8,8 --device nosuchgpu", "nosuchgpu"},
                      BadInput{"UnknownTuner", "--op gemm --shape 8,8,8 --tuner simulated", "simulated"},
                      BadInput{"UnknownTemplate", "--op gemm --shape 8,8,8 --template fast", "unknown template 'fast'"},
                      BadInput{"MissingConvKey", "--op conv2d --shape n=1,ci=3,h=8,w=8,co=4,kh=3,kw=3,pad=1",
                               "'stride' is missing"},
                      BadInput{"UnknownConvKey", "--op conv2d --shape n=1,ci=3,h=8,w=8,co=4,kh=3,kw=3,stride=1,pad=1,g=2",
                               "unknown key 'g'"},
                      BadInput{"KernelLargerThanInput",
                               "--op depthwise_conv2d --shape n=1,c=3,h=2,w=2,kh=5,kw=5,stride=1,pad=0",
                               "larger than the padded input"},
                      BadInput{"PinToAbsentValue", "--op gemm --shape 8,8,8 --pin vec=3", "knob vec has no value '3'"},
                      BadInput{"SwitchForAnotherOperator", "--op gemm --shape 8,8,8 --transpose-a",
                               "--transpose-a does not apply to gemm"},
                      BadInput{"SketchThatDoesNotFit",
                               "--op conv2d --shape n=1,ci=8,h=8,w=8,co=8,kh=3,kw=3,stride=2,pad=1 --template conv2d_winograd",
                               "needs a 3x3 kernel with stride 1"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TuneCommand, RefusesUnwritableDatabasePath) {
  ScratchDir dir;
  const auto db = dir.path() / "no" / "such" / "dir" / "h.db";
  const auto r = RunProgram(kProgram + " tune --op gemm --shape 8,8,8 --trials 1 --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(db.string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "no"));
}

TEST(TuneCommand, RefusesForeignFilesLeavingThemUntouched) {
  ScratchDir dir;
  const auto text = dir.path() / "notes.txt";
  { std::ofstream(text) << "not a database\n"; }
  const auto foreign = dir.path() / "other.db";
  RunProgram("sqlite3 " + foreign.string() + " \"CREATE TABLE t(x); INSERT INTO t VALUES (1);\"", dir.path());
  for (const auto& path : {text, foreign}) {
    const std::string before = ReadFile(path);
    const auto r = RunProgram(kProgram + " tune --op gemm --shape 8,8,8 --trials 1 --db " + path.string(), dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(path.string()), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(path), before);
  }
}

TEST(DevicesCommand, ListsTheDefaultDevice) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " devices", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("max-wg"), std::string::npos);
  EXPECT_NE(r.out.find("    0  "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tt
