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

std::string Data(const std::string& name) {
  std::ifstream in(std::string(TT_SOURCE_DIR) + "/tests/data/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Example() { return Data("kernel_tuner_gemm_cache.json"); }

// 27 entries of a published brute-force cache (convolution on an RTX A6000), as Kernel Tuner
// wrote them: 22 timed, 3 CompilationFailedConfig, 2 RuntimeFailedConfig.
std::string Convolution() { return Data("kernel_tuner_convolution_sample.json"); }

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A two-parameter cache with `entries` (key: entry text, in order).
std::string Small(const std::string& entries) {
  return R"({"kernel_name": "k", "device_name": "d", "tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2], )"
         R"("b": ["x", "y"]}, "cache": {)" +
         entries + "}}";
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
  EXPECT_FALSE(space.IsValid(
      *space.FromKey("block_size_x=16;block_size_y=1;tile_size_x=1;tile_size_y=1;use_shared=0;layout=0")));
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
  EXPECT_THROW(ParseKernelTunerCache(R"({"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {}})"),
               UserError);
  const auto cache = ParseKernelTunerCache(
      R"({"kernel_name": "k", "device_name": "d", "tune_params_keys": ["a"], "tune_params": {"a": [1, 2]},)"
      R"( "cache": {"1": {"a": 1, "time": 0.5}, "3": {"a": 3, "time": 0.5}, "2": {"a": 2}}})");
  EXPECT_EQ(cache.trials.size(), 1u);
  ASSERT_EQ(cache.errors.size(), 2u);
  // In the file's order.
  EXPECT_NE(cache.errors[0].find("cache entry '3': a = 3 is not among its tune_params"), std::string::npos)
      << cache.errors[0];
  EXPECT_NE(cache.errors[1].find("cache entry '2': no \"time\""), std::string::npos) << cache.errors[1];
}

TEST(KernelTunerCache, KernelTunersStatusNamesBecomeOurStatuses) {
  const KernelTunerCache cache = ParseKernelTunerCache(Convolution());
  EXPECT_TRUE(cache.errors.empty()) << cache.errors.front();
  EXPECT_FALSE(cache.open);
  std::map<MeasureStatus, int> statuses;
  for (const auto& t : cache.trials) ++statuses[t.result.status];
  EXPECT_EQ(statuses[MeasureStatus::kOk], 22);
  EXPECT_EQ(statuses[MeasureStatus::kCompileError], 3);  // CompilationFailedConfig
  EXPECT_EQ(statuses[MeasureStatus::kRuntimeError], 2);  // RuntimeFailedConfig
}

TEST(KernelTunerCache, AnEmptyDeviceNameLeavesTheNameToTheCaller) {
  const KernelTunerCache cache =
      ParseKernelTunerCache(Replaced(Convolution(), R"("device_name": "NVIDIA RTX A6000")", R"("device_name": "")"));
  EXPECT_EQ(cache.device.name, "");
  EXPECT_TRUE(cache.device.imported);
  EXPECT_EQ(cache.trials.size(), 27u);
}

// What Kernel Tuner leaves of an interrupted run: no closing brackets, a trailing comma.
TEST(KernelTunerCache, TheOpenFormatOfAnInterruptedRunIsRead) {
  std::string open = Convolution();
  open.erase(open.rfind("}\n}"));
  open += ",\n";
  const KernelTunerCache cache = ParseKernelTunerCache(open);
  EXPECT_TRUE(cache.open);
  EXPECT_TRUE(cache.errors.empty());
  EXPECT_EQ(cache.trials.size(), 27u);
  // Only its header: Kernel Tuner writes it before the first entry.
  const std::string text = Convolution();
  const KernelTunerCache header = ParseKernelTunerCache(text.substr(0, text.find("\"cache\": {") + 10));
  EXPECT_TRUE(header.open);
  EXPECT_TRUE(header.trials.empty());
  // Cut inside an entry, it is still refused with the line.
  EXPECT_THROW(ParseKernelTunerCache(open.substr(0, open.size() - 40)), UserError);
}

TEST(KernelTunerCache, BadValuesKeysAndDuplicatesAreBadEntriesNamed) {
  const auto cache = ParseKernelTunerCache(
      Small(R"("1,x": {"a": 1, "b": "x", "time": "fast"}, )"
            R"("1,y": {"a": 1, "b": "y", "time": "1.2345"}, )"
            R"("2,x": {"a": 2, "b": "y", "time": 0.5}, )"  // the key of another configuration
            R"("2,y": {"a": 2, "b": "y", "time": 0.7}, )"
            R"("2,x": {"a": 2, "b": "x", "time": 0.9}, )"  // the key again: the earlier entry is the bad one
            R"("1,x,": {"a": 1, "b": "x", "time": 0.1, "time": 0.2})"));
  std::vector<std::string> expected = {
      "cache entry '2,x': its key is given again later in the file, whose entry is read",
      "cache entry '1,x': \"time\" is \"fast\", neither milliseconds nor a Kernel Tuner failure",
      "cache entry '1,y': \"time\" is the string \"1.2345\", not a number",
      "cache entry '1,x,': gives \"time\" twice",
  };
  ASSERT_EQ(cache.errors.size(), expected.size()) << ::testing::PrintToString(cache.errors);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(cache.errors[i].rfind(expected[i], 0), 0u) << cache.errors[i];
  ASSERT_EQ(cache.trials.size(), 2u);
  EXPECT_EQ(cache.trials[0].cache_key, "2,x");  // the later entry, in the place of the first
  EXPECT_DOUBLE_EQ(cache.trials[0].result.time_s, 0.9e-3);
  EXPECT_EQ(cache.trials[1].cache_key, "2,y");

  const auto mismatch =
      ParseKernelTunerCache(Small(R"("2,x": {"a": 2, "b": "y", "time": 0.5}, "2,y": {"a": 2, "b": "y", "time": 0.7})"));
  ASSERT_EQ(mismatch.errors.size(), 1u);
  EXPECT_EQ(mismatch.errors[0], "cache entry '2,x': the key does not match the entry's parameters (2,y)");
  EXPECT_EQ(mismatch.trials.size(), 1u);
  // Keys as Python prints floats and booleans are theirs.
  const auto python = ParseKernelTunerCache(
      R"({"kernel_name": "k", "device_name": "d", "tune_params_keys": ["f", "t"], "tune_params": {"f": [0.5, 1.0], )"
      R"("t": [true, false]}, "cache": {"1.0,True": {"f": 1.0, "t": true, "time": 1}, "0.5,False": {"f": 0.5, "t": false, "time": 2}}})");
  EXPECT_TRUE(python.errors.empty()) << python.errors.front();
  EXPECT_EQ(python.trials.size(), 2u);
}

}  // namespace
}  // namespace tt
