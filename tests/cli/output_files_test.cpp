// Where `report` and `export` write: never over the database they read, never through a link
// someone left at the temporary name, nothing left behind when they cannot, and a full disk
// reported as the environment's failure (exit 3) with its reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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

}  // namespace
}  // namespace tt
