// AutoTVM/TopHub records for conv2d_nchw and depthwise_conv2d_nchw name configurations of our
// direct templates: same knob names, same split arity, every recorded value a point of our
// space (tests/data/tophub_sample.log holds records taken from TopHub's published logs).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ops/kernel_template.h"

namespace tt {
namespace {

// The workload an AutoTVM conv record's input describes (square stride and symmetric padding).
Workload FromAutoTvmInput(const nlohmann::json& input) {
  const auto& args = input[2];
  const auto data = args[0][1].get<std::vector<int64_t>>();
  const auto weight = args[1][1].get<std::vector<int64_t>>();
  const int64_t stride = args[2][0], pad = args[3][0], dilation = args[4][0];
  std::string shape = "n=" + std::to_string(data[0]);
  const bool depthwise = input[1] == "depthwise_conv2d_nchw.cuda";
  shape += depthwise ? ",c=" + std::to_string(data[1]) : ",ci=" + std::to_string(data[1]);
  shape += ",h=" + std::to_string(data[2]) + ",w=" + std::to_string(data[3]);
  if (!depthwise) shape += ",co=" + std::to_string(weight[0]);
  shape += ",kh=" + std::to_string(weight[2]) + ",kw=" + std::to_string(weight[3]) + ",stride=" +
           std::to_string(stride) + ",pad=" + std::to_string(pad) + ",dilation=" + std::to_string(dilation);
  return ParseWorkload(depthwise ? "depthwise_conv2d" : "conv2d", shape);
}

bool SplitsMultiplyToTheirExtents(const ConfigSpace& space, const nlohmann::json& entity) {
  for (const auto& knob : entity) {
    if (!knob[2].is_array()) continue;
    int64_t theirs = 1, ours = 1;
    for (int64_t f : knob[2].get<std::vector<int64_t>>()) theirs *= f;
    for (int64_t f : space.knob(space.KnobIndex(knob[0].get<std::string>())).value(0)) ours *= f;
    if (theirs > 0 && theirs != ours) return false;  // a -1 factor (inferred) always fits
  }
  return true;
}

TEST(TopHubRecords, ConfigurationsMeanTheSameHere) {
  std::ifstream log(std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log");
  ASSERT_TRUE(log) << "missing tests/data/tophub_sample.log";
  std::map<std::string, int> matched;
  std::string line;
  while (std::getline(log, line)) {
    const auto record = nlohmann::json::parse(line);
    const Workload w = FromAutoTvmInput(record["input"]);
    const KernelTemplate* t = FindTemplate(w.op == "conv2d" ? "conv2d_direct_local" : "depthwise_conv2d_direct");
    ASSERT_NE(t, nullptr);
    // A GPU's limits are not ours: the record must be a point of the space, valid or not here.
    const ConfigSpace space = t->Space(w, {1u << 20, 1u << 30});
    const nlohmann::json& entity = record["config"]["entity"];
    const auto config = space.FromJson(entity.dump());
    if (!SplitsMultiplyToTheirExtents(space, entity)) {
      // TopHub holds a few records whose factors do not multiply to the workload's extent
      // (tile_f 64x1x4x1 for 512 channels, tile_y 7x1x2x4 for 112 rows); they name no point
      // of any space and are refused.
      EXPECT_FALSE(config.has_value()) << w.Key() << " " << entity.dump();
      ++matched["inconsistent"];
      continue;
    }
    ASSERT_TRUE(config.has_value()) << w.Key() << " " << entity.dump();
    for (const auto& knob : entity) {
      const KnobValue ours = space.Value(*config, knob[0].get<std::string>());
      if (knob[2].is_array()) {
        const auto theirs = knob[2].get<std::vector<int64_t>>();
        for (size_t i = 1; i < theirs.size(); ++i) EXPECT_EQ(ours[i], theirs[i]) << knob.dump();
      } else {
        EXPECT_EQ(ours[0], knob[2].get<int64_t>()) << knob.dump();
      }
    }
    ++matched[w.op];
  }
  EXPECT_GE(matched["conv2d"], 10);
  EXPECT_GE(matched["depthwise_conv2d"], 10);
  EXPECT_EQ(matched["inconsistent"], 2);
}

}  // namespace
}  // namespace tt
