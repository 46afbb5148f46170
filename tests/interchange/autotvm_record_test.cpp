// Lines of AutoTVM logs: records, comments, and everything that is neither.
#include "interchange/autotvm_record.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tt {
namespace {

const std::string kLine =
    R"({"input": ["opencl -model=1080ti", "conv2d_nchw.cuda", [["TENSOR", [1, 2048, 8, 8], "float32"], )"
    R"(["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0, 0, 0], [1, 1], "float32"], {}], "config": )"
    R"({"index": 599486, "code_hash": null, "entity": [["tile_f", "sp", [12, 1, 16, 1]], ["unroll_explicit", "ot", 0]]}, )"
    R"("result": [[3.342781593590029e-05], 0, 2.1750707626342773, 1535942689.128338], "version": 0.2, "tvm_version": "0.7.dev0"})";

std::string Why(const std::string& line) {
  const auto parsed = ParseAutoTvmRecord(line);
  return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
}

TEST(AutoTvmRecord, ReadsEveryField) {
  const auto parsed = ParseAutoTvmRecord(kLine);
  ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(parsed)) << Why(kLine);
  const auto& r = std::get<AutoTvmRecord>(parsed);
  EXPECT_EQ(r.target, "opencl -model=1080ti");
  EXPECT_EQ(r.task_name, "conv2d_nchw.cuda");
  EXPECT_EQ(r.config_index, 599486);
  EXPECT_EQ(r.entity_json, R"([["tile_f","sp",[12,1,16,1]],["unroll_explicit","ot",0]])");
  EXPECT_EQ(r.costs, std::vector<double>{3.342781593590029e-05});
  EXPECT_EQ(r.error_no, 0);
  EXPECT_DOUBLE_EQ(r.timestamp, 1535942689.128338);
  EXPECT_EQ(r.tvm_version, "0.7.dev0");
}

TEST(AutoTvmRecord, FormatThenParseGivesTheSameRecord) {
  const auto r = std::get<AutoTvmRecord>(ParseAutoTvmRecord(kLine));
  const auto again = ParseAutoTvmRecord(FormatAutoTvmRecord(r));
  ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(again)) << Why(FormatAutoTvmRecord(r));
  const auto& b = std::get<AutoTvmRecord>(again);
  EXPECT_EQ(b.target, r.target);
  EXPECT_EQ(b.args_json, r.args_json);
  EXPECT_EQ(b.entity_json, r.entity_json);
  EXPECT_EQ(b.costs, r.costs);
  EXPECT_EQ(b.all_cost, r.all_cost);
  EXPECT_EQ(b.timestamp, r.timestamp);
}

TEST(AutoTvmRecord, CommentsAndBlankLinesAreNotRecords) {
  EXPECT_TRUE(IsAutoTvmCommentLine("# TopHub"));
  EXPECT_TRUE(IsAutoTvmCommentLine("   "));
  EXPECT_TRUE(IsAutoTvmCommentLine(""));
  EXPECT_FALSE(IsAutoTvmCommentLine(kLine));
}

TEST(AutoTvmRecord, MalformedLinesSayWhy) {
  EXPECT_EQ(Why(kLine.substr(0, kLine.size() / 2)), "not valid JSON (truncated?)");
  EXPECT_EQ(Why("[1, 2]"), "not a JSON object");
  EXPECT_EQ(Why(R"({"input": [], "config": {}})"), "no \"result\"");
  std::string bad_error = kLine;
  bad_error.replace(bad_error.find("], 0, 2.17"), 5, "], 42,");
  EXPECT_NE(Why(bad_error).find("error_no 42"), std::string::npos) << Why(bad_error);
  std::string negative_cost = kLine;
  negative_cost.replace(negative_cost.find("[[3.34"), 3, "[[-3");
  EXPECT_EQ(Why(negative_cost), "a cost is not a non-negative number");
  EXPECT_EQ(Why(std::string(100000, '[')), "nested too deeply to be a record");
}

std::vector<std::string> Records(const std::string& name) {
  std::ifstream in(std::string(TT_SOURCE_DIR) + "/tests/data/" + name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!IsAutoTvmCommentLine(line)) lines.push_back(line);
  return lines;
}

// TopHub's cuda v0.07 (record format 0.1) and v0.08 (0.2) hold the same records; read either
// way, they are the same.
TEST(AutoTvmRecord, RecordFormat01ReadsAsTheSameRecordInFormat02) {
  const auto old_lines = Records("tophub_cuda_v0.07_sample.log"), new_lines = Records("tophub_cuda_v0.08_sample.log");
  ASSERT_EQ(old_lines.size(), 11u);
  ASSERT_EQ(new_lines.size(), old_lines.size());
  for (size_t i = 0; i < old_lines.size(); ++i) {
    const auto a = ParseAutoTvmRecord(old_lines[i]), b = ParseAutoTvmRecord(new_lines[i]);
    ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(a)) << Why(old_lines[i]);
    ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(b)) << Why(new_lines[i]);
    const auto &old_record = std::get<AutoTvmRecord>(a), &new_record = std::get<AutoTvmRecord>(b);
    EXPECT_TRUE(old_record.format_01);
    EXPECT_FALSE(new_record.format_01);
    EXPECT_EQ(old_record.target, new_record.target);
    EXPECT_EQ(old_record.task_name, new_record.task_name) << i;
    if (new_record.task_name != "conv2d_transpose_nchw.cuda" && new_record.task_name != "conv2d_nchw_winograd.cuda") {
      EXPECT_EQ(nlohmann::json::parse(old_record.args_json), nlohmann::json::parse(new_record.args_json)) << i;
    }
    EXPECT_EQ(old_record.entity_json, new_record.entity_json);
    EXPECT_EQ(old_record.config_index, new_record.config_index);
    EXPECT_EQ(old_record.costs, new_record.costs);
    EXPECT_EQ(old_record.all_cost, new_record.all_cost);
    EXPECT_EQ(old_record.timestamp, new_record.timestamp);
  }
  // cuda v0.01: conv2d arguments without dilation, which is 1.
  const auto oldest = Records("tophub_cuda_v0.01_sample.log");
  ASSERT_EQ(oldest.size(), 3u);
  const auto first = ParseAutoTvmRecord(oldest[0]);
  ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(first)) << Why(oldest[0]);
  EXPECT_EQ(std::get<AutoTvmRecord>(first).task_name, "conv2d_nchw.cuda");
  EXPECT_EQ(nlohmann::json::parse(std::get<AutoTvmRecord>(first).args_json)[4], nlohmann::json::parse("[1, 1]"));
}

// Format 0.1's TOPI task names covered several templates; only the knobs tell them apart.
TEST(AutoTvmRecord, RecordFormat01TasksOfOtherTemplatesKeepTheirName) {
  const std::string mali =
      R"({"i": ["opencl -device=mali", "topi_nn_conv2d", [["TENSOR", [1, 3, 224, 224], "float32"], )"
      R"(["TENSOR", [32, 3, 3, 3], "float32"], [2, 2], [1, 1], [1, 1], "NCHW", "float32"], {}, [], )"
      R"({"i": 5, "c": null, "t": "direct", "e": [["tile_co", "sp", [4, 8]], ["tile_oh", "sp", [56, 2]], )"
      R"(["tile_ow", "sp", [28, 4]], ["reorder_0", "re", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]]}], )"
      R"("r": [[0.001], 0, 1.5, 1535340502.5], "v": 0.1})";
  const auto parsed = ParseAutoTvmRecord(mali);
  ASSERT_TRUE(std::holds_alternative<AutoTvmRecord>(parsed)) << Why(mali);
  EXPECT_EQ(std::get<AutoTvmRecord>(parsed).task_name, "topi_nn_conv2d (direct)");
  EXPECT_EQ(Why(R"({"i": ["cuda", "topi_nn_conv2d"], "r": [[1], 0, 1, 1], "v": 0.1})"),
            "\"i\" is not [target, task name, args, kwargs, workload, config] (record format 0.1)");
}

}  // namespace
}  // namespace tt
