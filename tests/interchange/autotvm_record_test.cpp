// Lines of AutoTVM logs: records, comments, and everything that is neither.
#include <gtest/gtest.h>

#include <string>

#include "interchange/autotvm_record.h"

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

}  // namespace
}  // namespace tt
