// End to end: the tensortune program on the default OpenCL device (POCL in CI).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "history/sqlite_history_store.h"
#include "run_program.h"

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
  const std::string tune = kProgram +
                           " tune --op gemm --shape 48,40,24 --tuner random --trials 10 --batch-size 4"
                           " --min-time 0.01 --seed 7 --json --db " +
                           db.string();
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
  EXPECT_EQ(
      Sql(db, "SELECT max(gflops) FROM trials"),
      Sql(db, "SELECT gflops FROM trials WHERE config_key='" + summary["best"]["config_key"].get<std::string>() + "'"));

  // The same command again measures 10 new configurations: history is never re-measured.
  const auto second = RunProgram(tune, dir.path());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "20\n");
  EXPECT_EQ(Sql(db, "SELECT count(DISTINCT config_key) FROM trials"), "20\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs"), "2\n");
}

// After the search the leading configs are timed again (a quarter of the trials by default,
// here half): no trial is added, and the JSON says how many re-timings there were.
TEST(TuneCommand, TimesTheLeadersAgainWithoutAddingTrials) {
  ScratchDir dir;
  for (const std::string share : {"0.5", "0"}) {
    const auto db = dir.path() / ("history-" + share + ".db");
    const auto run = RunProgram(kProgram +
                                    " tune --op gemm --shape 48,40,24 --tuner random --trials 12 --min-time 0.005 "
                                    "--json --retime-share " +
                                    share + " --db " + db.string(),
                                dir.path());
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto summary = nlohmann::json::parse(run.out);
    EXPECT_EQ(summary["trials"], 12);
    EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "12\n");
    const int64_t retimed = summary["retimed"]["measurements"].get<int64_t>();
    if (share == "0") {
      EXPECT_EQ(retimed, 0);
      continue;
    }
    EXPECT_GE(retimed, 2);  // at least the best, twice
    EXPECT_LE(retimed, 6);  // half of 12
    EXPECT_TRUE(summary["retimed"]["best_time_s_before"].is_number());
    ASSERT_FALSE(summary["best"].is_null());
    EXPECT_EQ(Sql(db, "SELECT config_key FROM trials WHERE status = 'ok' ORDER BY time_s LIMIT 1"),
              summary["best"]["config_key"].get<std::string>() + "\n");
  }
}

// Two processes on one task with the same seed propose the same configs; the database's
// claims make each config measured by one of them only.
TEST(TuneCommand, TwoConcurrentRunsOnOneTaskNeverMeasureAConfigTwice) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const std::string tune = kProgram +
                           " tune --op gemm --shape 32,32,32 --tuner random --trials 12 --batch-size 3"
                           " --min-time 0.005 --seed 5 --json --db " +
                           db.string();
  const auto a = dir.path() / "a.txt", b = dir.path() / "b.txt";
  const auto r =
      RunProgram("(" + tune + " >" + a.string() + " 2>&1 & " + tune + " >" + b.string() + " 2>&1 & wait)", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), "2\n") << ReadFile(a) << ReadFile(b);
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "24\n");
  EXPECT_EQ(Sql(db, "SELECT count(DISTINCT config_key) FROM trials"), "24\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM claims"), "0\n");
}

TEST(TuneCommand, PlainTextReportNamesBestConfigAndRun) {
  ScratchDir dir;
  const auto r = RunProgram(
      kProgram + " tune --op gemm --shape 16,16,16 --trials 3 --min-time 0.01 --db " + (dir.path() / "h.db").string(),
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 1: 3 trials"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best config: tile_x="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GFLOPS"), std::string::npos);
  EXPECT_NE(r.out.find("trials 3/3"), std::string::npos);  // plain progress lines when not a terminal
}

// History across devices: this task recorded on another device (here the same one renamed, as
// a database merged from another machine would hold it) is where a new device starts from;
// the default tuner (bo) is told the budget, and --warm-from none starts cold.
TEST(TuneCommand, StartsWarmFromAnotherDevicesRecordsOfTheTask) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const std::string tune = kProgram + " tune --op gemm --shape 16,16,16 --trials 8 --min-time 0.01 --db " + db.string();
  auto r = RunProgram(tune, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("warm start"), std::string::npos) << r.out;  // nothing to start from yet
  EXPECT_EQ(Sql(db, "SELECT tuner, json_extract(options_json, '$.budget') FROM runs"), "bo|8\n");
  Sql(db, "UPDATE devices SET name = 'Other ' || name, fingerprint = 'other | ' || fingerprint");
  r = RunProgram(tune, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warm start from other devices' records of this task: Other "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(similarity 0."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8 records)"), std::string::npos) << r.out;
  EXPECT_NE(RunProgram(tune + " --warm-from none", dir.path()).out.find("run 3: 8 trials"), std::string::npos);
  const auto refused = RunProgram(tune + " --warm-from MI250", dir.path());
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.err.find("no recorded device matches 'MI250'"), std::string::npos) << refused.err;
}

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
