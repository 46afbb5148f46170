#pragma once
// Runs a command line through the shell and captures its exit code, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tt::testing {

struct ProgramResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline ProgramResult RunProgram(const std::string& command, const std::filesystem::path& scratch) {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string line = command + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(line.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

// Bad input: exit code 2, exactly one line on stderr containing `message`, and no database
// file at `db`.
inline void ExpectRefusal(const ProgramResult& r, const std::string& message, const std::filesystem::path& db) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << db;
}

// Whether tests may mount a read-only bind mount or a small tmpfs in a private mount namespace
// (`unshare -m sh -c 'mount ...'`): root and unshare are needed.
inline bool PrivateMountsWork() {
  static const bool work = ::geteuid() == 0 && std::system("unshare -m true >/dev/null 2>&1") == 0;
  return work;
}

// A fresh directory under the system's temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tensortune-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// Runs a query with the sqlite3 shell, as a user would; its output, one line per row.
inline std::string Sql(const std::filesystem::path& db, const std::string& query) {
  ScratchDir scratch;
  const auto r = RunProgram("sqlite3 " + db.string() + " \"" + query + "\"", scratch.path());
  if (r.exit_code != 0) return "sqlite3 failed: " + r.err;
  return r.out;
}

}  // namespace tt::testing
