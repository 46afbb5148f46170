// SIGINT, SIGTERM and SIGHUP end every command alike: exit code 130, nothing half-written left
// behind (a temporary output removed, a database transaction rolled back), and a tune's run
// marked interrupted. Before: SIGTERM ended sql, export, report, import and run-network with
// 143 (killed), an export to a FIFO replaced the FIFO, and SIGHUP left a tune's run 'running'.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

// `command` run through the shell as this process's child (the shell replaced by it).
pid_t Start(const std::string& command) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command + " >/dev/null 2>&1 </dev/null").c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

// Whether the process, once it is tensortune (the shell before its exec has handlers of its
// own), has installed its handler for `signal` (its SigCgt mask), waiting for it.
bool WaitUntilItHandles(pid_t pid, int signal) {
  for (int i = 0; i < 6000; ++i) {
    std::string name;
    std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), name);
    if (name != "tensortune") {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("SigCgt:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1) & 1)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int WaitForExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The exit code of `command` sent `signal` once it handles it and has run a moment more.
int ExitAfterSignal(const std::string& command, int signal) {
  const pid_t pid = Start(command);
  EXPECT_TRUE(WaitUntilItHandles(pid, signal)) << command;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, signal);
  return WaitForExit(pid);
}

bool PartialFilesIn(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".partial-") != std::string::npos) return true;
  return false;
}

TEST(Signals, AnEndlessSqlStatementEndsWith130OnEachSignal) {
  ScratchDir dir;
  double best = 0;
  const std::string db = testing::RecordSyntheticSpace(dir.path(), 4, &best);
  const std::string endless = kProgram + " sql --db " + db +
                              " \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                              "SELECT count(*) FROM c\"";
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) EXPECT_EQ(ExitAfterSignal(endless, signal), 130) << signal;
}

// An export or report waiting for a FIFO's reader is interrupted like any other command.
TEST(Signals, ExportAndReportEndWith130AndLeaveNoTemporary) {
  ScratchDir dir;
  double best = 0;
  const std::string db = testing::RecordSyntheticSpace(dir.path(), 4, &best);
  const fs::path fifo = dir.path() / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    EXPECT_EQ(ExitAfterSignal(kProgram + " export --db " + db + " --format csv --out " + fifo.string(), signal), 130);
    EXPECT_EQ(ExitAfterSignal(kProgram + " report --db " + db + " --out " + fifo.string(), signal), 130);
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_FALSE(PartialFilesIn(dir.path()));
  }
}

// A command stopped, signalled and continued: the handler runs wherever it is.
int ExitAfterStopSignalContinue(const std::string& command, int signal) {
  const pid_t pid = Start(command);
  EXPECT_TRUE(WaitUntilItHandles(pid, signal)) << command;
  kill(pid, SIGSTOP);
  kill(pid, signal);
  kill(pid, SIGCONT);
  return WaitForExit(pid);
}

TEST(Signals, ImportEndsWith130AndWritesNothing) {
  ScratchDir dir;
  const std::string tophub = std::string(TT_SOURCE_DIR) + "/tests/data/tophub/";
  for (const int signal : {SIGTERM, SIGHUP}) {
    const fs::path db = dir.path() / ("h" + std::to_string(signal) + ".db");
    EXPECT_EQ(ExitAfterStopSignalContinue(kProgram + " import " + tophub + "cuda_v0.10.log.gz " + tophub +
                                              "opencl_v0.04.log.gz --db " + db.string(),
                                          signal),
              130);
    if (fs::exists(db)) {
      EXPECT_EQ(testing::Sql(db, "SELECT count(*) FROM trials"), "0\n");
    }
  }
}

TEST(Signals, SighupEndsATuneAsInterrupted) {
  ScratchDir dir;
  const fs::path db = dir.path() / "tune.db";
  const pid_t pid =
      Start(kProgram + " tune --op gemm --shape 128,128,128 --trials 400 --min-time 0.5 --db " + db.string());
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    running = fs::exists(db) && testing::Sql(db, "SELECT count(*) FROM runs WHERE status = 'running'") == "1\n";
  }
  ASSERT_TRUE(running);
  kill(pid, SIGHUP);
  EXPECT_EQ(WaitForExit(pid), 130);
  EXPECT_EQ(testing::Sql(db, "SELECT status FROM runs"), "interrupted\n");
}

}  // namespace
}  // namespace tt
