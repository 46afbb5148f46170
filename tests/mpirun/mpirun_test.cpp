// End to end: tensortune-mpi under mpirun, three ranks on this machine (oversubscribed), the
// worker ranks on the simulated device: rank 0 tunes and records, ranks 1 and 2 measure.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/run_program.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

// Open MPI refuses root unless told; a container's shared memory may not allow single-copy
// transfers. With recovery a rank that dies does not end the job, but Open MPI 4.1's mpirun
// then exits 0 whatever the ranks return: the exit codes are checked without it.
std::string Mpirun(int ranks, bool recovery = false) {
  std::string line = std::string(TT_MPIEXEC) + " --oversubscribe" + (recovery ? " --enable-recovery" : "") +
                     " --mca btl_vader_single_copy_mechanism none -n " + std::to_string(ranks);
  if (::geteuid() == 0) line += " --allow-run-as-root";
  return line + " " + TENSORTUNE_MPI_BIN;
}

std::string Tune(const fs::path& db, int trials, const std::string& device) {
  return " tune --op gemm --shape 64,64,64 --tuner random --seed 3 --batch-size 4 --json --trials " +
         std::to_string(trials) + " --device " + device + " --db " + db.string();
}

int64_t Count(const fs::path& db, const std::string& query) {
  const std::string out = Sql(db, query);
  try {
    return std::stoll(out);
  } catch (const std::exception&) {
    return -1;  // no database yet, or busy
  }
}

TEST(Mpirun, TwoWorkerRanksSpendTheBudgetWithoutMeasuringAConfigTwice) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto r = RunProgram(Mpirun(3) + Tune(db, 60, "fake:20"), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["trials"], 60);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 60);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT config_key) FROM trials"), 60);
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "finished\n");
  // --batch-size counts per worker rank: batches of 8, the last one 4.
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT batch) FROM trials"), 8);
  // Both worker ranks measured, each trial says which; rank 0 measured nothing.
  EXPECT_EQ(Sql(db, "SELECT DISTINCT substr(measured_by, 1, 9) FROM trials ORDER BY 1"), "rank 1 on\nrank 2 on\n");
  EXPECT_GT(Count(db, "SELECT min(n) FROM (SELECT count(*) AS n FROM trials GROUP BY measured_by)"), 0);
  EXPECT_NE(r.err.find("per rank: 1: "), std::string::npos) << r.err;
}

// On the OpenCL device (POCL in CI) each worker rank measures through its own worker process
// and builders, which must live from one message to the next. A fresh POCL kernel cache makes
// every build a cold one, as on a first run. The test asserts what the ranks must do whatever
// the machine's load: no worker crashed or was lost, every trial of the budget recorded, some
// measured. How long a build took is not its business: on a loaded machine a cold build may
// pass the adaptive build limit and be recorded as a transient timeout, which is the measurer's
// documented answer (docs/architecture.md, "Adaptive timeouts"), not a fault of the ranks.
TEST(Mpirun, WorkerRanksMeasureOnTheOpenClDeviceThroughTheirOwnWorkerProcesses) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto cache = dir.path() / "pocl-cache";
  fs::create_directories(cache);
  const auto r = RunProgram(
      "POCL_CACHE_DIR=" + cache.string() + " " + Mpirun(3) + Tune(db, 16, "0") + " --min-time 0.01 --builders 1",
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 16);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials WHERE error LIKE '%crashed%' OR error LIKE '%exited%'"), 0)
      << Sql(db, "SELECT measured_by, status, error FROM trials WHERE status != 'ok'");
  // Nothing but results and time limits: no runtime error, wrong answer or compile error.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials WHERE status NOT IN ('ok', 'timeout', 'invalid_config')"), 0)
      << Sql(db, "SELECT measured_by, status, error FROM trials WHERE status != 'ok'");
  EXPECT_GT(Count(db, "SELECT count(*) FROM trials WHERE status = 'ok'"), 0);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT measured_by) FROM trials"), 2);
  EXPECT_EQ(Sql(db, "SELECT DISTINCT d.platform != 'tensortune' FROM trials t JOIN devices d ON d.id = t.device_id"),
            "1\n");
}

// --device local:<fragment>: each worker rank of a host takes the next device that matches.
// This host has one POCL device: one worker rank takes it, a second is refused.
TEST(Mpirun, LocalDevicesGiveEachWorkerRankOfAHostItsOwn) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto one = RunProgram(Mpirun(2) + Tune(db, 4, "local:portable") + " --min-time 0.01 --builders 1", dir.path());
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_EQ(Sql(db, "SELECT DISTINCT measured_by LIKE 'rank 1 on %, device 0' FROM trials"), "1\n");

  const auto other_db = dir.path() / "other.db";
  const auto two = RunProgram(Mpirun(3) + Tune(other_db, 4, "local:portable"), dir.path());
  EXPECT_EQ(two.exit_code, 2) << two.out << two.err;
  EXPECT_NE(two.err.find("worker rank 2 needs a device of its own, but the host has 1 such device"), std::string::npos)
      << two.err;
  EXPECT_FALSE(fs::exists(other_db));
}

// The processes below `root` (mpirun and its ranks), read from /proc.
std::vector<pid_t> Descendants(pid_t root) {
  const auto parent_of = [](const std::string& pid) -> pid_t {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    return ppid;
  };
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t ancestor = parent_of(pid);
    while (ancestor > 1 && ancestor != root) ancestor = parent_of(std::to_string(ancestor));
    if (ancestor == root) found.push_back(static_cast<pid_t>(std::stol(pid)));
  }
  return found;
}

// The pid of the process whose MPI rank is `rank` among the descendants of `root`.
pid_t FindRank(pid_t root, int rank) {
  for (const pid_t pid : Descendants(root)) {
    std::ifstream environ("/proc/" + std::to_string(pid) + "/environ");
    const std::string text = '\0' + std::string((std::istreambuf_iterator<char>(environ)), {});
    if (text.find('\0' + ("OMPI_COMM_WORLD_RANK=" + std::to_string(rank)) + '\0') != std::string::npos) return pid;
  }
  return 0;
}

// Starts `line` through the shell in the background; its pid.
pid_t Start(const std::string& line) {
  const pid_t job = fork();
  if (job == 0) {
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return job;
}

TEST(Mpirun, ARankKilledMidRunCostsOnlyTheConfigsItHadInFlight) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto out = dir.path() / "out.txt", err = dir.path() / "err.txt";
  const std::string line = Mpirun(3, true) + Tune(db, 120, "fake:40") + " >" + out.string() + " 2>" + err.string();
  const pid_t job = Start(line);
  ASSERT_GT(job, 0);
  // Rank 2 dies (as with its host lost) once both ranks have recorded trials.
  for (int i = 0; i < 600 && Count(db, "SELECT count(DISTINCT measured_by) FROM trials") < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(Count(db, "SELECT count(DISTINCT measured_by) FROM trials"), 2) << testing::ReadFile(err);
  const pid_t rank2 = FindRank(job, 2);
  ASSERT_GT(rank2, 0);
  ASSERT_EQ(kill(rank2, SIGKILL), 0);
  const int64_t before = Count(db, "SELECT count(*) FROM trials WHERE measured_by LIKE 'rank 2 %'");

  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  const std::string stderr_text = testing::ReadFile(err);
  ASSERT_TRUE(WIFEXITED(status)) << stderr_text;
  ASSERT_EQ(WEXITSTATUS(status), 0) << stderr_text;  // always 0 under recovery: the summary tells
  const auto summary = nlohmann::json::parse(testing::ReadFile(out));
  EXPECT_EQ(summary["trials"], 120);
  EXPECT_FALSE(summary["interrupted"].get<bool>());
  // The budget is spent, every config once: rank 2's config in flight was measured by rank 1.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 120);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT config_key) FROM trials"), 120);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials WHERE status != 'ok'"), 0);
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "finished\n");
  // Nothing came from rank 2 after it died but its part of the batch then being measured (8).
  EXPECT_LE(Count(db, "SELECT count(*) FROM trials WHERE measured_by LIKE 'rank 2 %'"), before + 8);
  EXPECT_GT(Count(db, "SELECT count(*) FROM trials WHERE measured_by LIKE 'rank 1 %'"), 60);
  EXPECT_NE(stderr_text.find("rank 2 on "), std::string::npos) << stderr_text;
  EXPECT_NE(stderr_text.find("is lost"), std::string::npos) << stderr_text;
}

// Before: a rank stalled past the loss limit (SIGSTOP for 14 s) and then continued kept
// waiting for rank 0, and mpirun with it, long after the run had finished.
TEST(Mpirun, ARankLostWhileStalledLeavesWhenItComesBack) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto out = dir.path() / "out.txt", err = dir.path() / "err.txt";
  const std::string line = Mpirun(3, true) + Tune(db, 600, "fake:40") + " >" + out.string() + " 2>" + err.string();
  const pid_t job = Start(line);
  ASSERT_GT(job, 0);
  for (int i = 0; i < 600 && Count(db, "SELECT count(DISTINCT measured_by) FROM trials") < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const pid_t rank2 = FindRank(job, 2);
  ASSERT_GT(rank2, 0);
  ASSERT_EQ(kill(rank2, SIGSTOP), 0);
  for (int i = 0; i < 300 && testing::ReadFile(err).find("is lost") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_EQ(kill(rank2, SIGCONT), 0);
  // The job ends by itself; after five minutes it is ended here, and the test fails.
  int status = 0;
  pid_t ended = 0;
  for (int i = 0; i < 3000 && (ended = waitpid(job, &status, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (ended == 0) {
    kill(rank2, SIGKILL);
    waitpid(job, &status, 0);
  }
  const std::string stderr_text = testing::ReadFile(err);
  EXPECT_EQ(ended, job) << "mpirun still running five minutes later\n" << stderr_text;
  EXPECT_NE(stderr_text.find("rank 2 on "), std::string::npos) << stderr_text;
  EXPECT_NE(stderr_text.find("is lost"), std::string::npos) << stderr_text;
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT config_key) FROM trials"), 600);
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "finished\n");
}

// Whether `pid` has ended (gone, or a zombie that nobody reaped yet).
bool Ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const auto close = text.rfind(')');
  return close == std::string::npos || text.substr(close + 2, 1) == "Z" || text.substr(close + 2, 1) == "X";
}

// Before: rank 0 killed under --enable-recovery left the worker ranks waiting for it, mpirun
// running, and the run 'running' in the database, all for ever.
TEST(Mpirun, RankZeroKilledEndsTheJobAndTheNextCommandSeesTheRunFailed) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto err = dir.path() / "err.txt";
  const pid_t job = Start(Mpirun(3, true) + Tune(db, 600, "fake:40") + " >/dev/null 2>" + err.string());
  ASSERT_GT(job, 0);
  for (int i = 0; i < 600 && Count(db, "SELECT count(*) FROM trials") < 8; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const pid_t rank0 = FindRank(job, 0), rank1 = FindRank(job, 1), rank2 = FindRank(job, 2);
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank1, 0);
  ASSERT_GT(rank2, 0);
  ASSERT_EQ(kill(rank0, SIGKILL), 0);
  ASSERT_LT(Count(db, "SELECT count(*) FROM trials"), 600) << "the run ended before rank 0 was killed";

  // Every process ends by itself; after five minutes they are ended here, and the test fails.
  int status = 0;
  pid_t ended = 0;
  for (int i = 0; i < 3000 && (ended = waitpid(job, &status, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int i = 0; i < 100 && !(Ended(rank1) && Ended(rank2)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const bool ranks_ended = Ended(rank1) && Ended(rank2);
  if (ended == 0) {
    for (const pid_t pid : Descendants(job)) kill(pid, SIGKILL);
    kill(job, SIGKILL);
    waitpid(job, &status, 0);
  }
  const std::string stderr_text = testing::ReadFile(err);
  EXPECT_EQ(ended, job) << "mpirun still running five minutes after rank 0 was killed\n" << stderr_text;
  EXPECT_TRUE(ranks_ended) << stderr_text;
  for (const std::string rank : {"1", "2"})
    EXPECT_NE(stderr_text.find("rank " + rank + " on "), std::string::npos) << stderr_text;
  EXPECT_NE(stderr_text.find("rank 0, which tunes and records the run, is lost"), std::string::npos) << stderr_text;

  // The next command that writes to the database finds the run's process gone.
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "running\n");
  const auto next = RunProgram(std::string(TENSORTUNE_BIN) + Tune(db, 8, "fake"), dir.path());
  ASSERT_EQ(next.exit_code, 0) << next.out << next.err;
  EXPECT_EQ(Sql(db, "SELECT id, status FROM runs ORDER BY id"), "1|failed\n2|finished\n");
  EXPECT_NE(Sql(db, "SELECT error FROM runs WHERE id = 1").find("pid " + std::to_string(rank0) + " on "),
            std::string::npos);
}

TEST(Mpirun, RanksOnDevicesOfDifferentKindsAreRefused) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  // Two parts, as one rank per kind of device would be launched: rank 2 on the first OpenCL
  // device (POCL in CI), the others on the simulated one.
  std::string line = Mpirun(2) + Tune(db, 8, "fake") + " : -n 1 " + TENSORTUNE_MPI_BIN + Tune(db, 8, "0");
  const auto r = RunProgram(line, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("one run tunes one kind of device"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db));
}

TEST(Mpirun, ABadDeviceOnAWorkerRankIsNamedAndNothingIsWritten) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const auto r = RunProgram(Mpirun(3) + Tune(db, 8, "fake:abc"), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("tensortune: error: rank 1 on "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected fake:<milliseconds per config>"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db));
}

TEST(Mpirun, OneRankIsNotEnough) {
  ScratchDir dir;
  const auto r = RunProgram(Mpirun(1) + Tune(dir.path() / "history.db", 8, "fake"), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("tensortune-mpi: error: needs 2 or more ranks"), std::string::npos) << r.err;
}

// Without mpirun nothing changes: tensortune itself does not load MPI.
TEST(Mpirun, TensortuneItselfNeedsNoMpi) {
  ScratchDir dir;
  const auto r = RunProgram(std::string("ldd ") + TENSORTUNE_BIN, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("libmpi"), std::string::npos) << r.out;
}

// SIGINT to rank 0, as Ctrl-C to tensortune: the worker ranks abandon their configs, the
// finished batches are recorded, the run ends interrupted with exit code 130.
TEST(Mpirun, AnInterruptOfRankZeroEndsTheRunAsInterrupted) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const pid_t job = Start(Mpirun(3) + Tune(db, 400, "fake:200") + " >/dev/null 2>&1");
  ASSERT_GT(job, 0);
  for (int i = 0; i < 600 && Count(db, "SELECT count(*) FROM trials") < 8; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_GE(Count(db, "SELECT count(*) FROM trials"), 8);
  const pid_t rank0 = FindRank(job, 0);
  ASSERT_GT(rank0, 0);
  ASSERT_EQ(kill(rank0, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(Sql(db, "SELECT status FROM runs"), "interrupted\n");
  EXPECT_EQ(Count(db, "SELECT count(*) FROM claims"), 0);
  EXPECT_LT(Count(db, "SELECT count(*) FROM trials"), 400);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), Count(db, "SELECT count(DISTINCT config_key) FROM trials"));
}

// kill -9 of the whole job (mpirun and every rank) mid-run: the batches recorded stay, and the
// same command continues the network run and spends only what is left of the budget.
TEST(Mpirun, TheSameCommandContinuesAJobKilledWholeMidRun) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  const std::string command = Mpirun(3) + " tune-network resnet18 --trials 160 --tuner random --device fake:100" +
                              " --batch-size 4 --db " + db.string();
  const pid_t job = Start(command + " >/dev/null 2>&1");
  ASSERT_GT(job, 0);
  for (int i = 0; i < 600 && Count(db, "SELECT count(*) FROM trials") < 24; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int64_t recorded = Count(db, "SELECT count(*) FROM trials");
  ASSERT_GE(recorded, 24);
  for (const pid_t pid : Descendants(job)) kill(pid, SIGKILL);
  kill(job, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  const int64_t kept = Count(db, "SELECT count(*) FROM trials");
  EXPECT_GE(kept, recorded);
  ASSERT_LT(kept, 160) << "the run ended before it was killed";

  const auto again = RunProgram(command, dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(Count(db, "SELECT count(*) FROM trials"), 160);
  EXPECT_EQ(Count(db, "SELECT count(DISTINCT workload_id || '/' || template_id || '/' || config_key) FROM trials"),
            160);
  EXPECT_EQ(Sql(db, "SELECT id, status FROM network_runs"), "1|finished\n");
}

}  // namespace
}  // namespace tt
