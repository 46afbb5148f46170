// Where `report` and `export` write: never over the database they read, never through a link
// someone left at the temporary name, nothing left behind when they cannot, and a full disk
// reported as the environment's failure (exit 3) with its reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

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

// The files in a folder, but for the database's -wal and -shm (which a reader may create).
std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() != ".db-wal" && entry.path().extension() != ".db-shm")
      names.insert(entry.path().filename());
  return names;
}

std::string History(const fs::path& dir) {
  double best = 0;
  return RecordSyntheticSpace(dir, 12, &best);
}

// The two commands that write an --out file, writing to `out`.
std::vector<std::string> Writers(const std::string& db, const std::string& out) {
  return {kProgram + " report --db " + db + " --out " + out,
          kProgram + " export --db " + db + " --format csv --out " + out};
}

// Before: both exited 0 and the database became an HTML page or a CSV file.
TEST(OutputFiles, TheDatabaseIsNeverTheOutputByAnyPath) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  fs::create_hard_link(db, dir.path() / "hard.db");
  fs::create_symlink(db, dir.path() / "soft.db");
  const std::string bytes = ReadFile(db);
  for (const std::string& out : {db, (dir.path() / "." / "recorded.db").string(), (dir.path() / "hard.db").string(),
                                 (dir.path() / "soft.db").string(), db + "-wal"})
    for (const std::string& command : Writers(db, out)) {
      SCOPED_TRACE(command);
      const auto r = RunProgram(command, dir.path());
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_NE(r.err.find("being read"), std::string::npos) << r.err;
      EXPECT_EQ(ReadFile(db), bytes);
    }
}

// Before: OUT.partial was opened by name, so a symbolic link there had its target overwritten.
TEST(OutputFiles, ALinkAtTheTemporaryNameIsNotFollowed) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path victim = dir.path() / "victim.txt";
  std::ofstream(victim) << "keep me\n";
  const fs::path out = dir.path() / "out.txt";
  for (const char* name : {"out.txt.partial", ".out.txt.partial"}) fs::create_symlink(victim, dir.path() / name);
  for (const std::string& command : Writers(db, out.string())) {
    SCOPED_TRACE(command);
    const auto before = FilesIn(dir.path());
    const auto r = RunProgram(command, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadFile(victim), "keep me\n");
    EXPECT_GT(fs::file_size(out), 100u);
    auto after = FilesIn(dir.path());
    after.erase("out.txt");
    after.erase("stdout.txt");
    after.erase("stderr.txt");
    auto expected = before;
    expected.erase("out.txt");
    expected.erase("stdout.txt");
    expected.erase("stderr.txt");
    EXPECT_EQ(after, expected);
  }
}

// Before: a directory as --out was refused only after OUT.partial was written, and stayed.
TEST(OutputFiles, ADirectoryIsRefusedAndNothingIsLeftBehind) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path out = dir.path() / "out";
  fs::create_directory(out);
  const auto before = FilesIn(dir.path());
  for (const std::string& command : Writers(db, out.string())) {
    SCOPED_TRACE(command);
    const auto r = RunProgram(command, dir.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
    auto after = FilesIn(dir.path());
    after.erase("stdout.txt");
    after.erase("stderr.txt");
    auto expected = before;
    expected.erase("stdout.txt");
    expected.erase("stderr.txt");
    EXPECT_EQ(after, expected);
    EXPECT_TRUE(fs::is_empty(out));
  }
}

// Before: export to a full standard output exited 0.
TEST(OutputFiles, AFullStandardOutputIsAnEnvironmentError) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  // RunProgram sends the shell's stdout to a file; the command's own goes to /dev/full.
  const auto full = RunProgram("sh -c '" + kProgram + " export --db " + db + " --format json >/dev/full'", dir.path());
  EXPECT_EQ(full.exit_code, 3) << full.err;
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
}

// Before: a full disk under --out was bad input (exit 2) with no reason, and OUT.partial stayed.
TEST(OutputFiles, AFullDiskUnderOutIsAnEnvironmentErrorWithItsReason) {
  if (!PrivateMountsWork()) GTEST_SKIP() << "needs root and unshare -m for a small tmpfs";
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path mount = dir.path() / "small";
  fs::create_directory(mount);
  for (const std::string format : {"csv", "json"}) {
    const auto r = RunProgram("unshare -m sh -c 'mount -t tmpfs -o size=8k tmpfs " + mount.string() +
                                  " && (head -c 65536 /dev/zero > " + mount.string() + "/fill 2>/dev/null; true) && " +
                                  kProgram + " export --db " + db + " --format " + format + " --out " + mount.string() +
                                  "/out.txt; code=$?; ls -A " + mount.string() + " | grep -vx fill >&2; exit $code'",
                              dir.path());
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // and `ls` saw nothing
  }
}

bool IsCharacterDevice(const fs::path& path) { return fs::is_character_file(fs::symlink_status(path)); }

// Before: as root, `--out` on a device node renamed a regular file over it (so `--out
// /dev/null` would have replaced the system's /dev/null). A copy of /dev/null made with mknod
// in a scratch folder stands for it.
TEST(OutputFiles, ADeviceNodeIsWrittenThroughNeverReplaced) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path node = dir.path() / "null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod refused (" << std::strerror(errno) << "): needs root";
  for (const std::string& command : Writers(db, node.string())) {
    SCOPED_TRACE(command);
    const auto r = RunProgram(command, dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(IsCharacterDevice(node));
    for (const auto& entry : fs::directory_iterator(dir.path()))
      EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
  }
}

// Before: the FIFO was replaced by a regular file and its reader got nothing.
TEST(OutputFiles, AFifoIsWrittenThroughToItsReader) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path fifo = dir.path() / "fifo", got = dir.path() / "got.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  for (const std::string& command : Writers(db, fifo.string())) {
    SCOPED_TRACE(command);
    const auto r = RunProgram(
        "sh -c 'cat " + fifo.string() + " > " + got.string() + " & " + command + "; code=$?; wait; exit $code'",
        dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
    EXPECT_GT(fs::file_size(got), 100u);
  }
}

// Before: `--out /dev/stdout` exited 0, printed nothing and made /dev/stdout a regular file.
// The child's standard output is a pipe to `cat`, which writes the file the test reads.
TEST(OutputFiles, StandardOutputByAnyNameIsWrittenThrough) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path piped = dir.path() / "piped.txt";
  const auto expected = RunProgram(kProgram + " export --db " + db + " --format csv", dir.path());
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  ASSERT_GT(expected.out.size(), 100u);
  for (const char* out : {"-", "/dev/stdout", "/dev/fd/1"}) {
    SCOPED_TRACE(out);
    const auto r = RunProgram(
        "sh -c '" + kProgram + " export --db " + db + " --format csv --out " + out + " | cat > " + piped.string() + "'",
        dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadFile(piped), expected.out);
    const auto report = RunProgram(
        "sh -c '" + kProgram + " report --db " + db + " --out " + out + " | cat > " + piped.string() + "'", dir.path());
    EXPECT_EQ(report.exit_code, 0) << report.err;
    EXPECT_NE(ReadFile(piped).find("<!DOCTYPE html>"), std::string::npos);
  }
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

// Before: the temporary ".NAME.partial-XXXXXX" passed NAME_MAX and the write failed.
TEST(OutputFiles, ANameOfMaximalLengthWorks) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  for (const size_t length : {240u, 255u}) {
    const fs::path out = dir.path() / std::string(length, 'r');
    for (const std::string& command : Writers(db, out.string())) {
      SCOPED_TRACE(command);
      const auto r = RunProgram(command, dir.path());
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_GT(fs::file_size(out), 100u);
      fs::remove(out);
    }
  }
}

// Before: temporaries of killed writers (SIGKILL) stayed forever. A stale one (no writer holds
// it, unchanged for a minute) is removed by the next write of the same target; a fresh one,
// or one of another target, is left alone.
TEST(OutputFiles, StaleTemporariesOfTheSameTargetAreRemoved) {
  ScratchDir dir;
  const std::string db = History(dir.path());
  const fs::path stale = dir.path() / ".out.csv.partial-AbC123", fresh = dir.path() / ".out.csv.partial-XyZ789",
                 other = dir.path() / ".other.csv.partial-AbC123";
  for (const auto& path : {stale, fresh, other}) std::ofstream(path) << "half written";
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(stale, old);
  fs::last_write_time(other, old);
  const auto r = RunProgram(
      kProgram + " export --db " + db + " --format csv --out " + (dir.path() / "out.csv").string(), dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(other));
}

}  // namespace
}  // namespace tt
