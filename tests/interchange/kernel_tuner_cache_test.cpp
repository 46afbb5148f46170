// Kernel Tuner cache files as user-defined spaces.
#include "interchange/kernel_tuner_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.h"

namespace tt {
namespace {

std::string Example() {
  std::ifstream in(std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KernelTunerCache, ReadsTheSpaceItsTrialsAndTheirStatuses) {
  const std::string text = Example();
  ASSERT_TRUE(LooksLikeKernelTunerCache(text));
  const KernelTunerCache cache = ParseKernelTunerCache(text);
  EXPECT_EQ(cache.kernel_name, "matmul_kernel");
  EXPECT_EQ(cache.device.name, "NVIDIA A100-PCIE-40GB");
  EXPECT_TRUE(cache.device.imported);
  EXPECT_EQ(cache.workload.Key(), "kernel_tuner:p0=1024,p1=1024");
  EXPECT_TRUE(cache.errors.empty());
  ASSERT_EQ(cache.trials.size(), 396u);
  std::map<MeasureStatus, int> statuses;
  for (const auto& t : cache.trials) ++statuses[t.result.status];
  EXPECT_EQ(statuses[MeasureStatus::kOk], 331);
  EXPECT_GT(statuses[MeasureStatus::kInvalidConfig], 0);
  EXPECT_GT(statuses[MeasureStatus::kCompileError], 0);
  const auto first_it = std::find_if(cache.trials.begin(), cache.trials.end(),
                                     [](const auto& t) { return t.cache_key == "32,1,1,1,0,row"; });
  ASSERT_NE(first_it, cache.trials.end());
  const KernelTunerTrial& first = *first_it;
  EXPECT_EQ(first.config_key, "block_size_x=32;block_size_y=1;tile_size_x=1;tile_size_y=1;use_shared=0;layout=0");
  EXPECT_EQ(first.result.times_s.size(), 3u);
  EXPECT_EQ(first.measured_at.substr(0, 11), "2024-03-01T");
  EXPECT_EQ(first.measured_at.size(), 24u);
}

TEST(KernelTunerCache, IntegersAreOrderedKnobsAndStringsCategorical) {
  const KernelTunerCache cache = ParseKernelTunerCache(Example());
  const ConfigSpace space = UserSpaceFromJson(cache.space_json, {});
  ASSERT_EQ(space.num_knobs(), 6u);
  EXPECT_EQ(space.knob(0).kind(), KnobKind::kDiscrete);
  EXPECT_EQ(space.knob(0).neighbours(1), (std::vector<uint32_t>{0, 2}));  // 32: 16 and 64
  EXPECT_EQ(space.knob(5).kind(), KnobKind::kCategorical);
  EXPECT_EQ(space.Size(), 3u * 4 * 3 * 3 * 2 * 2);
}

TEST(KernelTunerCache, TheRecordedConfigurationsAreTheValidOnes) {
  const KernelTunerCache cache = ParseKernelTunerCache(Example());
  std::vector<std::string> keys;
  for (const auto& t : cache.trials) keys.push_back(t.config_key);
  const ConfigSpace space = UserSpaceFromJson(cache.space_json, keys);
  uint64_t valid = 0;
  for (uint64_t i = 0; i < space.Size(); ++i) valid += space.IsValid(space.FromIndex(i));
  EXPECT_EQ(valid, 396u);  // 432 points, 36 ruled out by the kernel's restriction
  EXPECT_FALSE(space.IsValid(*space.FromKey("block_size_x=16;block_size_y=1;tile_size_x=1;tile_size_y=1;use_shared=0;layout=0")));
}

TEST(KernelTunerCache, BadFilesAndEntriesAreReported) {
  const std::string text = Example();
  try {
    ParseKernelTunerCache(text.substr(0, text.size() / 2));
    FAIL() << "a truncated file was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON (truncated?)"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
  }
  EXPECT_THROW(ParseKernelTunerCache(R"({"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {}})"), UserError);
  const auto cache = ParseKernelTunerCache(
      R"({"kernel_name": "k", "device_name": "d", "tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},)"
      R"( "cache": {"1": {"a": 1, "time": 0.5}, "3": {"a": 3, "time": 0.5}, "2": {"a": 2}}})");
  EXPECT_EQ(cache.trials.size(), 1u);
  ASSERT_EQ(cache.errors.size(), 2u);
  EXPECT_NE(cache.errors[0].find("cache entry '2'"), std::string::npos) << cache.errors[0];
  EXPECT_NE(cache.errors[1].find("a = 3 is not among its tune_params"), std::string::npos) << cache.errors[1];
}

}  // namespace
}  // namespace tt
