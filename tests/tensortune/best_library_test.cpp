// FindBestConfig, the library call behind `tensortune best`, on a database filled here: no
// device needed.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "history/history_test_support.h"
#include "history/sqlite_history_store.h"
#include "ops/kernel_template.h"
#include "space/knob_schema.h"
#include "tensortune/best.h"

namespace tt {
namespace {

using testing::TempDir;

// An AutoTVM target or a Kernel Tuner GPU: limits unknown (NULL in the history).
DeviceInfo ImportedDevice(const std::string& name) {
  DeviceInfo d;
  d.platform = "AutoTVM";
  d.name = name;
  d.type = "gpu";
  d.imported = true;
  return d;
}

// Records `keys` for gemm `shape` with GFLOPS 10, 20, 30, ... (times `scale`) in order.
void Record(const std::string& db, const std::string& shape, const std::vector<std::string>& keys,
            const std::string& device = "cpu-a", const std::string& source_hash = "", bool imported = false,
            double scale = 1) {
  auto store = SqliteHistoryStore::Open(db);
  const Workload w = ParseWorkload("gemm", shape);
  const KernelTemplate& kernel = PickTemplate(w, "gemm_tiled");
  const ConfigSpace space = kernel.Space(w, {4096, 1 << 20});
  const TemplateRef ref{"gemm_tiled", "gemm", source_hash.empty() ? kernel.SourceHash() : source_hash,
                        KnobSchema(space)};
  const DeviceInfo recorded_on = imported ? ImportedDevice(device) : testing::CpuDevice(device);
  const TaskIds ids = store->EnsureTask(w, kernel.Flops(w), ref, recorded_on);
  const int64_t run = store->BeginRun(ids, {"random", "", 1, "test", 1});
  std::vector<TrialRecord> trials;
  for (size_t i = 0; i < keys.size(); ++i) {
    const double gflops = scale * 10.0 * static_cast<double>(i + 1);
    TrialRecord r;
    r.config_key = keys[i];
    r.config_json = space.ToJson(*space.FromKey(keys[i]));
    r.result = MeasureResult::Success({kernel.Flops(w) / gflops / 1e9}, kernel.Flops(w), 0.1);
    trials.push_back(r);
  }
  store->RecordBatch(run, ids, trials);
}

const std::string kSlow =
    "tile_x=[8,4,1,1];tile_y=[8,4,1,1];tile_k=[2,8,2];auto_unroll_max_step=0;vec=1;local_a=0;local_b=0;pack_b=0";
const std::string kFast =
    "tile_x=[2,4,2,2];tile_y=[2,2,2,4];tile_k=[1,16,2];auto_unroll_max_step=16;vec=4;local_a=1;local_b=0;pack_b=0";

TEST(BestLibrary, ExactRecordOrFallbackFromTheMostSimilarWorkload) {
  TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  Record(db, "32,32,32", {kSlow, kFast});

  const auto exact = FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "", ""});
  ASSERT_TRUE(exact);
  EXPECT_FALSE(exact->fallback);
  EXPECT_EQ(exact->config_key, kFast);
  EXPECT_DOUBLE_EQ(exact->gflops, 20);
  EXPECT_EQ(exact->device, "cpu-a");
  EXPECT_NE(exact->build_options.find("-D M=32"), std::string::npos) << exact->build_options;

  const auto fallback = FindBestConfig({ParseWorkload("gemm", "48,32,32"), db, "", ""});
  ASSERT_TRUE(fallback);
  EXPECT_TRUE(fallback->fallback);
  EXPECT_EQ(fallback->source_workload, "gemm:m=32,n=32,k=32");
  EXPECT_DOUBLE_EQ(fallback->match_score, (5.0 / 6 + 1 + 1) / 3);  // 32 has 6 divisors, 5 divide 48
  EXPECT_EQ(
      fallback->config_key,
      "tile_x=[3,4,2,2];tile_y=[2,2,2,4];tile_k=[1,16,2];auto_unroll_max_step=16;vec=4;local_a=1;local_b=0;pack_b=0");
  EXPECT_NE(fallback->build_options.find("-D M=48"), std::string::npos) << fallback->build_options;
}

TEST(BestLibrary, OlderSourcesOnlyGiveFallbacksAndDevicesAreFiltered) {
  TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  Record(db, "32,32,32", {kSlow, kFast}, "cpu-a", "an-older-source");
  const auto old = FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "", ""});
  ASSERT_TRUE(old);
  EXPECT_TRUE(old->fallback) << "trials of another source are no measured best";
  EXPECT_DOUBLE_EQ(old->match_score, 1);

  EXPECT_THROW(FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "gpu-x", ""}), UserError);
  EXPECT_FALSE(FindBestConfig({ParseWorkload("conv2d", "n=1,ci=4,h=8,w=8,co=4,kh=3,kw=3,stride=1,pad=1"), db, "", ""}));
}

// An imported device's limits are unknown (NULL): they constrain nothing, so its records are
// points of the space and `best` answers from them, exactly or as a fallback.
TEST(BestLibrary, ImportedRecordsAnswerWhenTheirLimitsAreUnknown) {
  TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  Record(db, "32,32,32", {kSlow, kFast}, "cuda -model=titanx", "", /*imported=*/true);

  const auto exact = FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "titanx", ""});
  ASSERT_TRUE(exact) << "no answer from an imported device";
  EXPECT_FALSE(exact->fallback);
  EXPECT_EQ(exact->config_key, kFast);
  EXPECT_EQ(exact->device, "cuda -model=titanx");
  ASSERT_TRUE(FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "", ""}));

  const auto fallback = FindBestConfig({ParseWorkload("gemm", "48,32,32"), db, "titanx", ""});
  ASSERT_TRUE(fallback);
  EXPECT_TRUE(fallback->fallback);
  EXPECT_EQ(fallback->source_workload, "gemm:m=32,n=32,k=32");
}

// Without --device, this machine's devices answer first (even slower ones: GFLOPS of other
// hardware say nothing of this one); imported devices when they have nothing.
TEST(BestLibrary, LocalDevicesAnswerBeforeImportedOnes) {
  TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  Record(db, "32,32,32", {kFast, kSlow}, "cpu-a");
  Record(db, "32,32,32", {kSlow, kFast}, "cuda -model=titanx", "", /*imported=*/true, /*scale=*/100);
  Record(
      db, "64,64,64",
      {"tile_x=[16,4,1,1];tile_y=[16,4,1,1];tile_k=[4,8,2];auto_unroll_max_step=0;vec=1;local_a=0;local_b=0;pack_b=0"},
      "cuda -model=titanx", "", /*imported=*/true, /*scale=*/100);

  const auto local = FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "", ""});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->device, "cpu-a");
  EXPECT_EQ(local->config_key, kSlow);
  const auto picked = FindBestConfig({ParseWorkload("gemm", "32,32,32"), db, "titanx", ""});
  ASSERT_TRUE(picked);
  EXPECT_EQ(picked->device, "cuda -model=titanx");
  EXPECT_EQ(picked->config_key, kFast);
  // A local fallback (from 32x32x32) comes before an imported device's exact record.
  const auto other = FindBestConfig({ParseWorkload("gemm", "64,64,64"), db, "", ""});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->device, "cpu-a");
  EXPECT_TRUE(other->fallback);
}

}  // namespace
}  // namespace tt
