// Input files that are no files of records: devices, FIFOs, /proc files and files far larger
// than any log. Refused with exit 2 and nothing written, never read until memory runs out.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::ExpectRefusal;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

// Before: /dev/zero was read until std::bad_alloc (exit 4) or the OOM killer; /proc/self/mem
// exited 0 and created an empty database.
TEST(HostileInputs, ImportRefusesDevicesFifosAndProcFiles) {
  ScratchDir dir;
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& input : {std::string("/dev/zero"), std::string("/dev/null"), fifo.string()}) {
    SCOPED_TRACE(input);
    const fs::path db = dir.path() / "h.db";
    const auto r = RunProgram(kProgram + " import " + input + " --db " + db.string(), dir.path());
    ExpectRefusal(r, "is not a regular file", db);
  }
  const fs::path db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " import /proc/self/mem --db " + db.string(), dir.path());
  ExpectRefusal(r, "cannot read /proc/self/mem", db);
}

// Before: read whole into memory. A sparse file costs no disk.
TEST(HostileInputs, ImportRefusesAFileLargerThanAnyLog) {
  ScratchDir dir;
  const fs::path huge = dir.path() / "huge.log", db = dir.path() / "h.db";
  { std::ofstream(huge) << "x"; }
  fs::resize_file(huge, uintmax_t{3} << 30);
  const auto r = RunProgram(kProgram + " import " + huge.string() + " --db " + db.string(), dir.path());
  ExpectRefusal(r, "too large to read", db);
}

// Before: the refused merge left a new, empty target database behind.
TEST(HostileInputs, ARefusedMergeCreatesNoTarget) {
  ScratchDir dir;
  double best = 0;
  const std::string source = testing::RecordSyntheticSpace(dir.path(), 6, &best);
  const auto forged = RunProgram(
      "sqlite3 " + source + " \"PRAGMA ignore_check_constraints = 1; UPDATE trials SET status = 'bogus'\"", dir.path());
  ASSERT_EQ(forged.exit_code, 0) << forged.err;
  const fs::path target = dir.path() / "merged.db";
  const auto r = RunProgram(kProgram + " merge " + source + " --into " + target.string(), dir.path());
  ExpectRefusal(r, source, target);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(target.string() + suffix));
}

}  // namespace
}  // namespace tt
