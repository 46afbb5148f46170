// Histories from elsewhere and histories in odd places: crafted values never crash a reader or
// end in an internal error, readers work on a read-only file system, `sql` that refuses leaves
// nothing behind, a locked database is the environment's fault, CSV quotes what it must.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::PrivateMountsWork;
using testing::ReadFile;
using testing::RecordSyntheticSpace;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

std::string History(const fs::path& dir) {
  double best = 0;
  return RecordSyntheticSpace(dir, 12, &best);
}

void Shell(const std::string& command, const fs::path& scratch) {
  const auto r = RunProgram(command, scratch);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
}

// Changes a closed database with the sqlite3 shell, CHECK constraints off, as a forger would.
void Forge(const std::string& db, const std::string& sql, const fs::path& scratch) {
  Shell("sqlite3 " + db + " \"PRAGMA ignore_check_constraints = 1; " + sql + "\"", scratch);
}

std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != "stdout.txt" && entry.path().filename() != "stderr.txt")
      names.insert(entry.path().filename());
  return names;
}

// The commands that only read a history, each bounded in time.
std::vector<std::string> Readers(const std::string& db, const fs::path& out_dir) {
  const std::string t = "timeout 120 " + kProgram;
  return {t + " sql --db " + db + " \"SELECT * FROM best_per_task\"",
          t + " sql --db " + db + " --json \"SELECT * FROM runs_view\"",
          t + " sql --db " + db + " --csv \"SELECT * FROM convergence\"",
          t + " sql --db " + db + " \"SELECT * FROM tuner_comparison\"",
          t + " sql --db " + db + " \"SELECT * FROM trials_view\"",
          t + " report --db " + db + " --out " + (out_dir / "report.html").string(),
          t + " export --db " + db + " --format autotvm",
          t + " export --db " + db + " --format csv",
          t + " export --db " + db + " --format json",
          t + " export --db " + db + " --format t4 --out " + (out_dir / "t4.json").string(),
          t + " best --db " + db + " --op gemm --shape 16,16,16",
          t + " compare --db " + db + " --op gemm --shape 16,16,16 --tuners random --seeds 1 --trials 2"};
}

struct Forgery {
  const char* name;
  std::string sql;
};

// Before: a report looped until out of memory on 1.7e308 GFLOPS; other values ended in exit 4.
TEST(HostileHistory, CraftedValuesNeverCrashOrEndInAnInternalError) {
  const std::vector<Forgery> forgeries = {
      {"HugeGflops", "UPDATE trials SET gflops = 1.7e308 WHERE id = 1"},
      {"InfiniteAndNegative",
       "UPDATE trials SET gflops = 9e999, time_s = -1 WHERE id = 1; "
       "UPDATE trials SET gflops = -9e999, time_s = 9e999 WHERE id = 2"},
      {"UnknownStatus", "UPDATE trials SET status = 'bogus' WHERE id = 1"},
      {"TimesNotNumbers", "UPDATE trials SET times_json = '[1, \\\"x\\\", {}]' WHERE id = 1"},
      {"ConfigNotAList",
       "UPDATE trials SET config_json = '{}' WHERE id = 1; "
       "UPDATE trials SET config_json = '[1, [2]]' WHERE id = 2"},
      {"ConfigKeyGarbage", "UPDATE trials SET config_key = 'tile_x=[99999999999999999999999];vec=' WHERE id = 1"},
      {"WorkloadKeyGarbage", "UPDATE workloads SET key = 'gemm:m=1,,n=x\\nnew line'"},
      {"UnknownTemplate", "UPDATE kernel_templates SET name = 'no,such \\\"template\\\"'"},
      {"HugeDeviceLimits",
       "UPDATE devices SET max_work_group_size = 9223372036854775807, "
       "local_mem_bytes = -1, compute_units = -5"},
      {"NetworkProgressAbsurd",
       "INSERT INTO network_runs (id, network, batch, device_id, scheduler, sketch_policy, tuner, seed, "
       "trials_requested, resume_key, command, started_at, status) VALUES (1, 'n', 1, 1, 'ucb', 'ucb', 'r', 0, -1, "
       "'k', 'c', 'now', 'finished'); INSERT INTO network_progress VALUES (1, -5, 1e308, 'x'), "
       "(1, 9223372036854775807, 9e999, 'y'), (1, 3, -1, 'z'); UPDATE runs SET network_run_id = 1"},
      {"RunOfAnotherTask", "UPDATE trials SET run_id = 12345 WHERE id = 1"},
  };
  for (const Forgery& forgery : forgeries) {
    SCOPED_TRACE(forgery.name);
    ScratchDir dir;
    const std::string db = History(dir.path());
    Forge(db, forgery.sql, dir.path());
    for (const std::string& command : Readers(db, dir.path())) {
      SCOPED_TRACE(command);
      const auto r = RunProgram(command, dir.path());
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << r.exit_code << " " << r.err;
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
      if (r.exit_code == 2) {
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      }
    }
  }
}

// Before: the template and op columns were written unquoted, so a comma in either shifted
// every later column.
TEST(HostileHistory, CsvQuotesEveryTextColumn) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  Forge(db,
        "UPDATE kernel_templates SET name = 'gemm,\\\"tiled\\\"'; UPDATE workloads SET key = 'ge,mm:m=16,n=16,k=16'",
        dir.path());
  const auto r = RunProgram(kProgram + " export --db " + db + " --format csv", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string row =
      r.out.substr(r.out.find('\n') + 1, r.out.find('\n', r.out.find('\n') + 1) - r.out.find('\n') - 1);
  EXPECT_NE(row.find(",\"ge,mm\","), std::string::npos) << row;
  EXPECT_NE(row.find(",\"gemm,\"\"tiled\"\"\","), std::string::npos) << row;
}

// Before: a refused statement left -wal and -shm files beside the database.
TEST(HostileHistory, SqlThatRefusesLeavesNothingBehind) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const auto before = FilesIn(dir.path());
  for (const std::string& args :
       {std::string("\"DELETE FROM trials\""), std::string("\"SELECT 1; SELECT 2\""), std::string("\"SELEC 1\""),
        std::string("\"SELECT * FROM no_such_table\""), std::string("\"SELECT hex(fts3_tokenizer('simple'))\""),
        std::string("--write \"SELEC 1\""), std::string("--write \"ATTACH 'x.db' AS x\""),
        std::string("--write \"CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM trials; END\"")}) {
    SCOPED_TRACE(args);
    const auto r = RunProgram(kProgram + " sql --db " + db + " " + args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(FilesIn(dir.path()), before);
  }
  // A statement for a database that does not exist yet creates nothing when it is refused.
  const auto r =
      RunProgram(kProgram + " sql --write --db " + (dir.path() / "new.db").string() + " \"SELEC 1\"", dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(FilesIn(dir.path()), before);
}

// Before: exit 2 ("SQL: database is locked"), as if the statement were at fault.
TEST(HostileHistory, ALockedDatabaseUnderSqlWriteIsAnEnvironmentError) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  // The sqlite3 shell holds the write lock for 30 s; its pid is written for the kill below.
  Shell("( (echo 'BEGIN IMMEDIATE; DELETE FROM claims;'; sleep 30) | sqlite3 " + db + " & echo $! > " +
            (dir.path() / "holder.pid").string() + ") ; sleep 0.5",
        dir.path());
  const auto r = RunProgram(kProgram + " sql --write --db " + db + " \"DELETE FROM trials\"", dir.path());
  Shell("kill $(cat " + (dir.path() / "holder.pid").string() + ") 2>/dev/null; true", dir.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Before: sql, report, export, best and compare opened the history for writing and refused.
TEST(HostileHistory, ReadersWorkOnAReadOnlyFileSystem) {
  if (!PrivateMountsWork()) GTEST_SKIP() << "needs root and unshare -m for a read-only bind mount";
  ScratchDir dir, out;
  const fs::path history_dir = dir.path() / "ro";
  fs::create_directory(history_dir);
  double best = 0;
  const std::string db = RecordSyntheticSpace(history_dir, 12, &best);
  const std::string bytes = ReadFile(db);
  for (const std::string& command : Readers(db, out.path())) {
    SCOPED_TRACE(command);
    const auto r = RunProgram("unshare -m sh -c 'mount --bind " + history_dir.string() + " " + history_dir.string() +
                                  " && mount -o remount,ro,bind " + history_dir.string() + " && " + command + "'",
                              out.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(ReadFile(db), bytes);
  EXPECT_EQ(FilesIn(history_dir), std::set<std::string>{"recorded.db"});
}

// Before: both opened the history for writing and refused a read-only file system, although
// they only read it.
TEST(HostileHistory, ExportKernelsAndRunNetworkReadAHistoryOnAReadOnlyFileSystem) {
  if (!PrivateMountsWork()) GTEST_SKIP() << "needs root and unshare -m for a read-only bind mount";
  ScratchDir dir, out;
  const fs::path history_dir = dir.path() / "ro";
  fs::create_directory(history_dir);
  double best = 0;
  const std::string db = RecordSyntheticSpace(history_dir, 12, &best);
  const std::string bytes = ReadFile(db);
  const fs::path network = out.path() / "one.json";
  std::ofstream(network) << R"({"name": "one", "layers": [{"op": "gemm", "shape": "16,16,16"}]})";
  for (const std::string& command :
       {kProgram + " export-kernels " + network.string() + " --db " + db + " --device recorded-cpu --out " +
            (out.path() / "pack").string(),
        kProgram + " run-network " + network.string() + " --db " + db + " --min-time 0 --min-runs 1"}) {
    SCOPED_TRACE(command);
    const auto r = RunProgram("unshare -m sh -c 'mount --bind " + history_dir.string() + " " + history_dir.string() +
                                  " && mount -o remount,ro,bind " + history_dir.string() + " && " + command + "'",
                              out.path());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  EXPECT_EQ(ReadFile(db), bytes);
  EXPECT_EQ(FilesIn(history_dir), std::set<std::string>{"recorded.db"});
}

// Before: export-kernels on a full disk said neither why nor cleaned its partial pack.
TEST(HostileHistory, ExportKernelsOnAFullDiskSaysWhyAndLeavesNothing) {
  if (!PrivateMountsWork()) GTEST_SKIP() << "needs root and unshare -m for a small tmpfs";
  ScratchDir dir;
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir.path(), 12, &best);
  const fs::path network = dir.path() / "one.json", mount = dir.path() / "small";
  std::ofstream(network) << R"({"name": "one", "layers": [{"op": "gemm", "shape": "16,16,16"}]})";
  fs::create_directory(mount);
  const auto r =
      RunProgram("unshare -m sh -c 'mount -t tmpfs -o size=8k tmpfs " + mount.string() +
                     " && (head -c 65536 /dev/zero > " + mount.string() + "/fill 2>/dev/null; true) && " + kProgram +
                     " export-kernels " + network.string() + " --db " + db + " --device recorded-cpu --out " +
                     mount.string() + "/pack; code=$?; ls -A " + mount.string() + " | grep -vx fill >&2; exit $code'",
                 dir.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // and `ls` saw nothing
}

// Before: tune exited 3 but its run stayed 'running', without the reason.
TEST(HostileHistory, AFullDiskMarksTheRunFailedWithTheReason) {
  if (!PrivateMountsWork()) GTEST_SKIP() << "needs root and unshare -m for a small tmpfs";
  ScratchDir dir;
  const fs::path mount = dir.path() / "small";
  fs::create_directory(mount);
  const std::string db = (mount / "h.db").string();
  const auto r =
      RunProgram("unshare -m sh -c 'mount -t tmpfs -o size=360k tmpfs " + mount.string() + " && " + kProgram +
                     " tune --op gemm --shape 32,32,32 --trials 60 --min-time 0.001 --batch-size 2 --db " + db +
                     " >/dev/null; code=$?; sqlite3 " + db +
                     " \"SELECT status, error FROM runs; "
                     "SELECT count(*) FROM claims\"; exit $code'",
                 dir.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("disk is full"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.rfind("failed|", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("disk is full"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n0\n"), std::string::npos) << r.out;  // no claim left
}

}  // namespace
}  // namespace tt
