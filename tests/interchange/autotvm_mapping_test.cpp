// AutoTVM/TopHub records for conv2d_nchw and depthwise_conv2d_nchw name configurations of our
// direct templates: same knob names, same split arity, every recorded value a point of our
// space (tests/data/tophub_sample.log holds records taken from TopHub's published logs).
#include "interchange/autotvm_mapping.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace tt {
namespace {

using Outcome = RecordMapping::Outcome;

AutoTvmRecord Parsed(const std::string& line) {
  auto parsed = ParseAutoTvmRecord(line);
  EXPECT_TRUE(std::holds_alternative<AutoTvmRecord>(parsed)) << std::get<std::string>(parsed);
  return std::get<AutoTvmRecord>(parsed);
}

TEST(AutoTvmMapping, TopHubConfigurationsMeanTheSameHere) {
  std::ifstream log(std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log");
  ASSERT_TRUE(log) << "missing tests/data/tophub_sample.log";
  AutoTvmMapper mapper;
  std::map<std::string, int> matched;
  std::string line;
  while (std::getline(log, line)) {
    const AutoTvmRecord record = Parsed(line);
    const RecordMapping m = mapper.Map(record);
    if (m.outcome == Outcome::kSkipped) {
      // TopHub holds a few records whose factors do not multiply to the workload's extent
      // (tile_f 64x1x4x1 for 512 channels, tile_y 7x1x2x4 for 112 rows); they name no point
      // of any space and are skipped.
      EXPECT_EQ(m.reason, "split factors do not multiply to the workload's extents");
      ++matched["inconsistent"];
      continue;
    }
    ASSERT_EQ(m.outcome, Outcome::kMapped) << m.reason;
    const auto ours = nlohmann::json::parse(m.trial.config_json);
    const auto theirs = nlohmann::json::parse(record.entity_json);
    ASSERT_EQ(ours.size(), theirs.size());
    for (const auto& knob : theirs) {
      const auto it = std::find_if(ours.begin(), ours.end(), [&](const auto& k) { return k[0] == knob[0]; });
      ASSERT_NE(it, ours.end()) << knob.dump();
      if (knob[2].is_array()) {  // the first factor may be AutoTVM's inferred -1
        for (size_t i = 1; i < knob[2].size(); ++i) EXPECT_EQ((*it)[2][i], knob[2][i]) << knob.dump();
      } else {
        EXPECT_EQ((*it)[2], knob[2]) << knob.dump();
      }
    }
    EXPECT_TRUE(m.trial.result.ok());
    EXPECT_EQ(m.trial.result.times_s, record.costs);
    EXPECT_GT(m.trial.result.gflops, 0);
    ++matched[m.trial.workload.op];
  }
  EXPECT_GE(matched["conv2d"], 10);
  EXPECT_GE(matched["depthwise_conv2d"], 10);
  EXPECT_EQ(matched["inconsistent"], 2);
}

const char* kConvRecord =
    R"({"input": ["cuda -model=titanx", "conv2d_nchw.cuda", [["TENSOR", [1, 64, 56, 56], "float32"], )"
    R"(["TENSOR", [64, 64, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1], "float32"], {}], "config": )"
    R"({"index": 7, "code_hash": null, "entity": [["tile_f", "sp", [-1, 2, 8, 1]], ["tile_y", "sp", [7, 1, 8, 1]], )"
    R"(["tile_x", "sp", [7, 1, 8, 1]], ["tile_rc", "sp", [8, 8]], ["tile_ry", "sp", [1, 3]], ["tile_rx", "sp", [3, 1]], )"
    R"(["auto_unroll_max_step", "ot", 512], ["unroll_explicit", "ot", 1]]}, "result": [[0.001, 0.003], 0, 2.5, 1535423916.5], )"
    R"("version": 0.2, "tvm_version": "0.7.dev0"})";

TEST(AutoTvmMapping, ConvRecordBecomesATrialOfTheDirectLocalSketch) {
  AutoTvmMapper mapper;
  const RecordMapping m = mapper.Map(Parsed(kConvRecord));
  ASSERT_EQ(m.outcome, Outcome::kMapped) << m.reason;
  EXPECT_EQ(m.trial.kernel->name(), "conv2d_direct_local");
  EXPECT_EQ(m.trial.workload.Key(), "conv2d:n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1,dilation=1");
  EXPECT_NE(m.trial.config_key.find("tile_f=[4,2,8,1]"), std::string::npos) << m.trial.config_key;  // -1 inferred
  EXPECT_DOUBLE_EQ(m.trial.result.time_s, 0.002);  // the median of the costs
  EXPECT_DOUBLE_EQ(m.trial.result.compile_s, 2.5 - 0.004);
  EXPECT_EQ(m.trial.measured_at, "2018-08-28T02:38:36.500Z");
}

TEST(AutoTvmMapping, OtherTasksAndShapesAreSkippedNotBad) {
  AutoTvmMapper mapper;
  std::string winograd = kConvRecord;
  winograd.replace(winograd.find("conv2d_nchw.cuda"), 16, "conv2d_nchw_winograd.cuda");
  EXPECT_EQ(mapper.Map(Parsed(winograd)).outcome, Outcome::kSkipped);
  std::string asymmetric = kConvRecord;
  asymmetric.replace(asymmetric.find("[1, 1, 1, 1]"), 12, "[1, 0, 1, 0]");
  const RecordMapping m = mapper.Map(Parsed(asymmetric));
  EXPECT_EQ(m.outcome, Outcome::kSkipped);
  EXPECT_EQ(m.reason, "stride, padding or dilation differ between axes");
}

TEST(AutoTvmMapping, AnUnknownKnobOrImpossibleShapeIsBad) {
  AutoTvmMapper mapper;
  std::string unknown_knob = kConvRecord;
  unknown_knob.replace(unknown_knob.find("tile_rc"), 7, "tile_zz");
  EXPECT_EQ(mapper.Map(Parsed(unknown_knob)).outcome, Outcome::kBad);
  EXPECT_EQ(mapper.Map(Parsed(unknown_knob)).reason, "unknown knob 'tile_zz' for sketch conv2d_direct_local");
  std::string zero_rows = kConvRecord;
  zero_rows.replace(zero_rows.find("[1, 64, 56, 56]"), 15, "[1, 64, 0, 56]");
  EXPECT_EQ(mapper.Map(Parsed(zero_rows)).outcome, Outcome::kBad);
}

// rocm_v0.05 holds auto_unroll_max_step values (128, 1024) our sketch does not offer: those
// records are skipped, naming knob and value, and the others of the file map.
TEST(AutoTvmMapping, AValueOutsideOurSpaceIsSkippedNamingKnobAndValue) {
  std::ifstream log(std::string(TT_SOURCE_DIR) + "/tests/data/tophub_rocm_unroll_sample.log");
  AutoTvmMapper mapper;
  std::vector<RecordMapping> mapped;
  for (std::string line; std::getline(log, line);)
    if (!IsAutoTvmCommentLine(line)) mapped.push_back(mapper.Map(Parsed(line)));
  ASSERT_EQ(mapped.size(), 4u);
  EXPECT_EQ(mapped[0].outcome, Outcome::kMapped) << mapped[0].reason;
  EXPECT_EQ(mapped[1].outcome, Outcome::kSkipped);
  EXPECT_EQ(mapped[1].reason, "auto_unroll_max_step = 128 is not a value of conv2d_direct_local (0, 512, 1500)");
  EXPECT_EQ(mapped[2].outcome, Outcome::kSkipped);
  EXPECT_EQ(mapped[2].reason, "auto_unroll_max_step = 1024 is not a value of conv2d_direct_local (0, 512, 1500)");
  EXPECT_EQ(mapped[3].outcome, Outcome::kMapped) << mapped[3].reason;

  // A knob of the wrong form is still bad, and says which.
  std::string three_factors = kConvRecord;
  three_factors.replace(three_factors.find("[7, 1, 8, 1]"), 12, "[7, 8, 1]");
  const RecordMapping m = mapper.Map(Parsed(three_factors));
  EXPECT_EQ(m.outcome, Outcome::kBad);
  EXPECT_EQ(m.reason, "knob 'tile_y' has 3 values, sketch conv2d_direct_local's has 4");
}

// Export writes a record that maps back to the same trial, for AutoTVM's tasks and ours.
TEST(AutoTvmMapping, ExportedRecordsMapBackToTheSameTrial) {
  AutoTvmMapper mapper;
  const RecordMapping conv = mapper.Map(Parsed(kConvRecord));
  ASSERT_EQ(conv.outcome, Outcome::kMapped);

  const Workload gemm = ParseWorkload("gemm", "64,32,16");
  const KernelTemplate& gemm_tiled = *FindTemplate("gemm_tiled");
  const ConfigSpace space = gemm_tiled.Space(gemm, {1024, 65536});
  const Config config = space.FromIndex(space.Size() / 3);
  MappedTrial failed{gemm,
                     &gemm_tiled,
                     space.Key(config),
                     space.ToJson(config),
                     MeasureResult::Failure(MeasureStatus::kCompileError, "log"),
                     "2024-05-01T12:34:56.789Z"};
  failed.result.compile_s = 0.5;

  for (const MappedTrial& trial : {conv.trial, failed}) {
    const AutoTvmRecord exported = ToAutoTvmRecord(trial.workload, *trial.kernel, trial.config_json, trial.result,
                                                   "opencl -device=cpu", trial.measured_at);
    const RecordMapping back = mapper.Map(Parsed(FormatAutoTvmRecord(exported)));
    ASSERT_EQ(back.outcome, Outcome::kMapped) << back.reason;
    EXPECT_EQ(back.trial.workload, trial.workload);
    EXPECT_EQ(back.trial.kernel, trial.kernel);
    EXPECT_EQ(back.trial.config_key, trial.config_key);
    EXPECT_EQ(back.trial.result.status, trial.result.status);
    EXPECT_EQ(back.trial.result.times_s, trial.result.times_s);
    EXPECT_NEAR(back.trial.result.compile_s, trial.result.compile_s, 1e-9);
    EXPECT_EQ(back.trial.measured_at, trial.measured_at);
  }
}

TEST(AutoTvmMapping, TargetsBecomeImportedDevices) {
  const DeviceInfo d = AutoTvmTargetDevice("cuda -model=v100");
  EXPECT_TRUE(d.imported);
  EXPECT_EQ(d.type, "gpu");
  EXPECT_EQ(d.max_work_group_size, 0u);
  EXPECT_EQ(AutoTvmTargetOf(d), "cuda -model=v100");
  EXPECT_EQ(AutoTvmTargetDevice("llvm -mcpu=skylake").type, "cpu");
}

}  // namespace
}  // namespace tt
