// Runs started together on a database that does not exist yet all get it, created once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "core/errors.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

// Child exit codes: 0 opened, 2 refused as bad input, 3 environment error, 4 anything else.
int OpenInChild(const std::string& path, int start_fd) {
  char go = 0;
  if (read(start_fd, &go, 1) < 0) return 4;  // released when the parent closes the pipe
  try {
    SqliteHistoryStore::Open(path).reset();
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "refused: %s\n", e.what());
    return 2;
  } catch (const EnvironmentError& e) {
    std::fprintf(stderr, "environment error: %s\n", e.what());
    return 3;
  } catch (...) {
    return 4;
  }
}

// Before creation was made safe, about 2 in 100 such starts failed with "database is locked";
// 40 rounds of 6 processes make 240 starts, each round on a fresh path.
TEST(HistoryOpen, ManyProcessesCreateOneNewDatabaseTogether) {
  constexpr int kRounds = 40, kProcesses = 6;
  testing::TempDir dir;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.File("new" + std::to_string(round) + ".db");
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; ++i) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(start[1]);
        _exit(OpenInChild(path, start[0]));
      }
      children.push_back(pid);
    }
    close(start[0]);
    close(start[1]);  // every child reads EOF at once
    for (const pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++failures;
        ADD_FAILURE() << "round " << round << ": a process ended with status " << status;
      }
    }
    auto store = SqliteHistoryStore::Open(path);  // one database, at the latest version
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace tt
