// Fault suite, databases: a file tensortune cannot use is refused with exit 2 and stays
// byte-for-byte as it was (FNV-1a checksums before and after), with nothing new beside it.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>

#include "history/history_test_support.h"
#include "run_program.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

uint64_t Checksum(const fs::path& path) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : ReadFile(path)) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::set<std::string> FilesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

void Sqlite(const fs::path& db, const std::string& sql, const fs::path& scratch) {
  const auto r = RunProgram("sqlite3 " + db.string() + " \"" + sql + "\"", scratch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

struct Fault {
  const char* name;
  std::function<void(const fs::path& db, const fs::path& scratch)> make;
  const char* message;
};

const Fault kFaults[] = {
    {"TruncatedInsideLastPage",
     [](const fs::path& db, const fs::path&) {
       testing::DatabaseOfManyPages(db.string());
       fs::resize_file(db, fs::file_size(db) - 1000);
     },
     "truncated"},
    {"TruncatedByWholePages",
     [](const fs::path& db, const fs::path&) {
       testing::DatabaseOfManyPages(db.string());
       fs::resize_file(db, fs::file_size(db) - 3 * 4096);
     },
     "truncated"},
    {"OverwrittenInteriorPages",
     [](const fs::path& db, const fs::path&) {
       testing::DatabaseOfManyPages(db.string());
       testing::OverwriteMiddleThird(db.string());
     },
     "corrupt"},
    {"Foreign",
     [](const fs::path& db, const fs::path& s) { Sqlite(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", s); },
     "not a tensortune database"},
    {"NewerVersion",
     [](const fs::path& db, const fs::path& s) {
       testing::DatabaseOfManyPages(db.string());
       Sqlite(db, "PRAGMA user_version = 999;", s);
     },
     "newer tensortune"},
    {"NotADatabase", [](const fs::path& db, const fs::path&) { std::ofstream(db) << "my notes, not a database\n"; },
     "not a SQLite database"},
};

TEST(DatabaseFaults, EveryUnusableFileIsRefusedAndLeftUnchanged) {
  int refused_unchanged = 0;
  for (const Fault& fault : kFaults) {
    SCOPED_TRACE(fault.name);
    ScratchDir dir, scratch;
    const fs::path db = dir.path() / "history.db";
    fault.make(db, scratch.path());
    const uint64_t before = Checksum(db);
    const auto files_before = FilesIn(dir.path());
    for (const char* command :
         {" tune --trials 1 --op gemm --shape 8,8,8", " sweep --limit 1 --op gemm --shape 8,8,8"}) {
      const auto r = RunProgram(kProgram + command + " --min-time 0.01 --db " + db.string(), scratch.path());
      EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out << r.err;
      EXPECT_NE(r.err.find(fault.message), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      const uint64_t after = Checksum(db);
      EXPECT_EQ(after, before) << std::hex << before << " -> " << after;
      EXPECT_EQ(FilesIn(dir.path()), files_before);
      refused_unchanged += r.exit_code == 2 && after == before;
    }
  }
  ::testing::Test::RecordProperty("refused_unchanged", refused_unchanged);
  EXPECT_EQ(refused_unchanged, 2 * static_cast<int>(std::size(kFaults)));
}

}  // namespace
}  // namespace tt
