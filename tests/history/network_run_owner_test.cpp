// Two identical `tune-network` commands at once: the second is refused while the first lives,
// instead of continuing the same network run and spending its budget twice.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::GemmTask;
using testing::TempDir;

NetworkRunInfo Info() { return {"tiny", 1, "ucb", "ucb", "random", 1, 24, "resume-key", "tune-network tiny"}; }

SqliteHistoryStore::NetworkRunStart Begin(const std::string& path) {
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  return store->BeginNetworkRun(task.device, Info(), {{task.workload, 1, "layer", std::nullopt}});
}

// Before: the second command found the first's run 'running' and continued it (both printed
// "24 of 24", and the run held 48 trials).
TEST(NetworkRunOwner, ASecondProcessIsRefusedWhileTheFirstLivesAndContinuesAfterIt) {
  TempDir dir;
  const std::string path = dir.File("h.db");
  SqliteHistoryStore::Open(path).reset();
  // The first command: begins the run, then keeps tuning it.
  const pid_t child = testing::StartLivingProcess([&] { Begin(path); });
  ASSERT_GT(child, 0);
  try {
    Begin(path);
    ADD_FAILURE() << "a second process continued the running network run";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("is being tuned by process " + std::to_string(child)), std::string::npos)
        << e.what();
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  // Killed with -9, it left its run 'running' (marked 'failed' on the next open): the same command
  // continues it.
  const auto resumed = Begin(path);
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.id, 1);
  // This process may begin it again (a resume after an interruption in the same process).
  EXPECT_TRUE(Begin(path).resumed);
}

}  // namespace
}  // namespace tt
