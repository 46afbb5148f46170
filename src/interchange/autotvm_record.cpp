#include "interchange/autotvm_record.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "interchange/json_depth.h"

namespace tt {
namespace {

using Json = nlohmann::json;

bool IsFiniteNumber(const Json& j) { return j.is_number() && std::isfinite(j.get<double>()); }

std::string Check(bool ok, const char* what) { return ok ? std::string() : std::string(what); }

// The first structural problem of a parsed line, or empty.
std::string WhyNotARecord(const Json& j) {
  if (!j.is_object()) return "not a JSON object";
  for (const char* key : {"input", "config", "result"})
    if (!j.contains(key)) return std::string("no \"") + key + "\"";
  const Json& in = j["input"];
  if (auto e = Check(in.is_array() && in.size() >= 3 && in[0].is_string() && in[1].is_string() && in[2].is_array(),
                     "\"input\" is not [target, task name, args, ...]");
      !e.empty())
    return e;
  const Json& config = j["config"];
  if (auto e = Check(config.is_object() && config.contains("entity") && config["entity"].is_array(),
                     "\"config\" has no \"entity\" list");
      !e.empty())
    return e;
  if (config.contains("index") && !config["index"].is_number_integer()) return "\"config\".\"index\" is not an integer";
  const Json& result = j["result"];
  if (!result.is_array() || result.size() < 4 || !result[0].is_array() || !result[1].is_number_integer() ||
      !IsFiniteNumber(result[2]) || !IsFiniteNumber(result[3]))
    return "\"result\" is not [costs, error_no, all_cost, timestamp]";
  for (const Json& cost : result[0])
    if (!IsFiniteNumber(cost) || cost.get<double>() < 0) return "a cost is not a non-negative number";
  if (j.contains("version") && !j["version"].is_number()) return "\"version\" is not a number";
  return {};
}

// Record format 0.1's TOPI tasks that are today's CUDA templates: same template key, same knobs.
struct LegacyTask {
  const char* task;
  const char* template_key;
  const char* today;
  std::vector<std::string> knobs;  // sorted
  enum { kOther, kConv2d, kDepthwise } args;
};
const LegacyTask kLegacyTasks[] = {
    {"topi_nn_conv2d",
     "direct",
     "conv2d_nchw.cuda",
     {"auto_unroll_max_step", "tile_f", "tile_rc", "tile_rx", "tile_ry", "tile_x", "tile_y", "unroll_explicit"},
     LegacyTask::kConv2d},
    {"topi_nn_conv2d",
     "winograd",
     "conv2d_nchw_winograd.cuda",
     {"auto_unroll_max_step", "tile_b", "tile_rc", "tile_x", "tile_y", "unroll_explicit"},
     LegacyTask::kOther},
    {"topi_nn_depthwise_conv2d_nchw",
     "direct",
     "depthwise_conv2d_nchw.cuda",
     {"auto_unroll_max_step", "tile_f", "tile_x", "tile_y", "unroll_explicit"},
     LegacyTask::kDepthwise},
    {"topi_nn_conv2d_transpose_nchw",
     "direct",
     "conv2d_transpose_nchw.cuda",
     {"auto_unroll_max_step", "fuse_yx", "tile_f", "tile_n", "tile_rc", "tile_x", "tile_y", "unroll_explicit"},
     LegacyTask::kOther},
};

std::vector<std::string> KnobNames(const Json& entity) {
  std::vector<std::string> names;
  if (!entity.is_array()) return names;
  for (const Json& knob : entity)
    if (knob.is_array() && !knob.empty() && knob[0].is_string()) names.push_back(knob[0].get<std::string>());
  std::sort(names.begin(), names.end());
  return names;
}

// Today's arguments [data, kernel, strides, padding (4), dilation, out_dtype] of format 0.1's
// conv2d [data, kernel, strides, padding (2), (dilation,) layout, out_dtype] or depthwise
// [data, kernel, strides, padding (2), (dilation,) out_dtype]; nullopt when they are neither,
// or another layout than NCHW.
std::optional<Json> TodaysConvArgs(const Json& args, bool depthwise) {
  const size_t without_dilation = depthwise ? 5 : 6;
  if (!args.is_array() || (args.size() != without_dilation && args.size() != without_dilation + 1)) return std::nullopt;
  const bool dilated = args.size() == without_dilation + 1;
  if (!depthwise && args[args.size() - 2] != "NCHW") return std::nullopt;
  Json padding = args[3];
  if (padding.is_array() && padding.size() == 2)
    padding = Json::array({padding[0], padding[1], padding[0], padding[1]});
  return Json::array({args[0], args[1], args[2], padding, dilated ? args[4] : Json::array({1, 1}), args.back()});
}

// The format 0.2 object of a format 0.1 record, or why it is not one.
std::variant<Json, std::string> FromFormat01(const Json& j) {
  const Json& in = j["i"];
  if (!in.is_array() || in.size() < 6 || !in[0].is_string() || !in[1].is_string() || !in[2].is_array() ||
      !in[5].is_object())
    return std::string("\"i\" is not [target, task name, args, kwargs, workload, config] (record format 0.1)");
  const Json& config = in[5];
  const Json entity = config.contains("e") ? config["e"] : config.value("entity", Json());
  const Json index = config.contains("i") ? config["i"] : config.value("index", Json(0));
  const std::string template_key =
      config.contains("t") && config["t"].is_string() ? config["t"].get<std::string>() : "";
  std::string task = in[1].get<std::string>();
  Json args = in[2];
  const LegacyTask* legacy = nullptr;
  for (const LegacyTask& t : kLegacyTasks)
    if (task == t.task && template_key == t.template_key && KnobNames(entity) == t.knobs) legacy = &t;
  std::optional<Json> today_args = args;
  if (legacy && legacy->args != LegacyTask::kOther)
    today_args = TodaysConvArgs(args, legacy->args == LegacyTask::kDepthwise);
  if (legacy && today_args) {
    task = legacy->today;
    args = *today_args;
  } else if (!template_key.empty()) {
    task += " (" + template_key + ")";  // a template of its own: "topi_nn_conv2d (winograd)" on Mali
  }
  Json record = {{"input", Json::array({in[0], task, args, Json::object()})},
                 {"config", {{"index", index}, {"entity", entity}}},
                 {"result", j.contains("r") ? j["r"] : Json()}};
  if (j.contains("v")) record["version"] = j["v"];
  return record;
}

}  // namespace

bool IsAutoTvmCommentLine(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

std::variant<AutoTvmRecord, std::string> ParseAutoTvmRecord(std::string_view line) {
  if (NestsTooDeep(line, 32)) return std::string("nested too deeply to be a record");
  Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::string("not valid JSON (truncated?)");
  const bool format_01 = j.is_object() && j.contains("i") && !j.contains("input");
  if (format_01) {
    auto converted = FromFormat01(j);
    if (auto* why = std::get_if<std::string>(&converted)) return *why;
    j = std::move(std::get<Json>(converted));
  }
  if (std::string why = WhyNotARecord(j); !why.empty()) return why;
  const Json& result = j["result"];
  const int64_t error_no = result[1].get<int64_t>();
  if (error_no < 0 || error_no > 8)
    return std::string("error_no ") + std::to_string(error_no) + " is not one of AutoTVM's (0 to 8)";
  AutoTvmRecord r;
  r.target = j["input"][0].get<std::string>();
  r.task_name = j["input"][1].get<std::string>();
  r.args_json = j["input"][2].dump();
  r.entity_json = j["config"]["entity"].dump();
  r.config_index = j["config"].value("index", int64_t{0});
  for (const Json& cost : result[0]) r.costs.push_back(cost.get<double>());
  r.error_no = static_cast<int>(error_no);
  r.all_cost = result[2].get<double>();
  r.timestamp = result[3].get<double>();
  if (j.contains("tvm_version") && j["tvm_version"].is_string()) r.tvm_version = j["tvm_version"].get<std::string>();
  r.format_01 = format_01;
  return r;
}

// Keys in AutoTVM's order, so that logs diff cleanly against AutoTVM's own.
std::string FormatAutoTvmRecord(const AutoTvmRecord& r) {
  using Ordered = nlohmann::ordered_json;
  Ordered j = Ordered::object();
  j["input"] = Ordered::array({r.target, r.task_name, Ordered::parse(r.args_json), Ordered::object()});
  j["config"] = {{"index", r.config_index}, {"code_hash", nullptr}, {"entity", Ordered::parse(r.entity_json)}};
  j["result"] = Ordered::array({r.costs, r.error_no, r.all_cost, r.timestamp});
  j["version"] = 0.2;
  j["tvm_version"] = r.tvm_version.empty() ? "0.7.dev1" : r.tvm_version;
  return j.dump(-1, ' ', false, Ordered::error_handler_t::replace);
}

}  // namespace tt
