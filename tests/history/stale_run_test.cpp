// Tier: unit
// A run whose process died (kill -9, a tensortune-mpi rank 0 lost) is marked 'failed' by the
// next process that opens the database for writing on its host; before, it stayed 'running'
// for ever. Runs of living processes, of other hosts and without an owner are left alone.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

std::string Query(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, sql);
  std::string out;
  while (q.executeStep()) out += q.getColumn(0).getString() + "\n";
  return out;
}

void Write(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(sql);
}

std::string HostName() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// A process that begins a run, records a batch and is killed with -9; its pid.
pid_t KilledTuner(const std::string& path) {
  const pid_t child = fork();
  if (child == 0) {
    auto store = SqliteHistoryStore::Open(path);
    const TaskIds task = GemmTask(*store);
    const int64_t run = store->BeginRun(task, {});
    store->RecordBatch(run, task, {OkTrial("a", {1e-3}, 0)});
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  return child;
}

TEST(StaleRuns, AKilledRunIsMarkedFailedWhenTheDatabaseIsNextOpenedForWriting) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  const pid_t killed = KilledTuner(path);
  EXPECT_EQ(Query(path, "SELECT status FROM runs"), "running\n");
  EXPECT_EQ(Query(path, "SELECT owner LIKE '" + HostName() + " " + std::to_string(killed) + " %' FROM runs"), "1\n");
  // A reader leaves the file as it is.
  SqliteHistoryStore::OpenReadOnly(path).reset();
  EXPECT_EQ(Query(path, "SELECT status FROM runs"), "running\n");

  auto store = SqliteHistoryStore::Open(path);
  EXPECT_EQ(Query(path, "SELECT status FROM runs"), "failed\n");
  EXPECT_EQ(Query(path, "SELECT ended_at IS NOT NULL FROM runs"), "1\n");
  const std::string error = Query(path, "SELECT error FROM runs");
  EXPECT_NE(error.find("pid " + std::to_string(killed) + " on " + HostName()), std::string::npos) << error;
  EXPECT_NE(error.find("ended without ending it"), std::string::npos) << error;
  EXPECT_EQ(store->Trials(GemmTask(*store)).size(), 1u);  // its batch stays
}

TEST(StaleRuns, RunsOfLivingProcessesOtherHostsAndOlderRowsStayRunning) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  const int64_t mine = store->BeginRun(task, {});  // this process: alive
  const int64_t elsewhere = store->BeginRun(task, {});
  const int64_t older = store->BeginRun(task, {});
  Write(path, "UPDATE runs SET owner = 'a-host-that-is-not-this-one 1 1' WHERE id = " + std::to_string(elsewhere));
  Write(path, "UPDATE runs SET owner = NULL WHERE id = " + std::to_string(older));
  // Another living process's run.
  const pid_t child = testing::StartLivingProcess([&] {
    auto own = SqliteHistoryStore::Open(path);
    own->BeginRun(GemmTask(*own), {});
  });
  ASSERT_GT(child, 0);
  SqliteHistoryStore::Open(path).reset();
  EXPECT_EQ(Query(path, "SELECT count(*) FROM runs WHERE status = 'running'"), "4\n");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  SqliteHistoryStore::Open(path).reset();
  EXPECT_EQ(Query(path, "SELECT id FROM runs WHERE status = 'running' ORDER BY id"),
            std::to_string(mine) + "\n" + std::to_string(elsewhere) + "\n" + std::to_string(older) + "\n");
  EXPECT_EQ(Query(path, "SELECT count(*) FROM runs WHERE status = 'failed'"), "1\n");
  store->EndRun(mine, "finished");
}

// The pid of a living process (this one) with another start time: the process that began the
// run ended and its pid was given to another.
TEST(StaleRuns, ARunWhosePidWasReusedIsMarkedFailed) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  {
    auto store = SqliteHistoryStore::Open(path);
    store->BeginRun(GemmTask(*store), {});
  }
  Write(path, "UPDATE runs SET owner = '" + HostName() + " " + std::to_string(getpid()) + " 1'");
  SqliteHistoryStore::Open(path).reset();
  EXPECT_EQ(Query(path, "SELECT status FROM runs"), "failed\n");
}

TEST(StaleRuns, ANetworkRunOfAKilledProcessIsMarkedFailedAndTheSameCommandContinuesIt) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  const NetworkRunInfo info{"tiny", 1, "ucb", "ucb", "random", 1, 24, "resume-key", "tune-network tiny"};
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = SqliteHistoryStore::Open(path);
    const TaskIds task = GemmTask(*store);
    store->BeginNetworkRun(task.device, info, {{task.workload, 1, "layer", std::nullopt}});
    kill(getpid(), SIGKILL);
  }
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_EQ(Query(path, "SELECT status FROM network_runs"), "running\n");
  auto store = SqliteHistoryStore::Open(path);
  EXPECT_EQ(Query(path, "SELECT status FROM network_runs"), "failed\n");
  const TaskIds task = GemmTask(*store);
  const auto resumed = store->BeginNetworkRun(task.device, info, {{task.workload, 1, "layer", std::nullopt}});
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(Query(path, "SELECT status FROM network_runs"), "running\n");
}

}  // namespace
}  // namespace tt
