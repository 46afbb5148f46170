// Every fuzzing seed and every input that once crashed an importer (tests/fuzz/) goes
// through the importers' parsing and mapping again: none may crash or throw but UserError.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/import_fuzz_targets.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(TT_SOURCE_DIR) / "tests/fuzz" / kind / target;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  }
  return files;
}

std::string Bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FuzzCorpus, AutoTvmInputsNeverCrashTheImporter) {
  const auto files = Inputs("autotvm");
  EXPECT_GE(files.size(), 4u);
  for (const auto& file : files) EXPECT_NO_THROW(fuzz::ImportAutoTvmLog(Bytes(file))) << file;
}

TEST(FuzzCorpus, KernelTunerInputsNeverCrashTheImporter) {
  const auto files = Inputs("kernel_tuner");
  EXPECT_GE(files.size(), 1u);
  for (const auto& file : files) EXPECT_NO_THROW(fuzz::ImportKernelTunerCache(Bytes(file))) << file;
}

}  // namespace
}  // namespace tt
