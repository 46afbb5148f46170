#include "interchange/autotvm_record.h"

#include "interchange/json_depth.h"

#include <cmath>
#include <nlohmann/json.hpp>

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

}  // namespace

bool IsAutoTvmCommentLine(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

std::variant<AutoTvmRecord, std::string> ParseAutoTvmRecord(std::string_view line) {
  if (NestsTooDeep(line, 32)) return std::string("nested too deeply to be a record");
  const Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::string("not valid JSON (truncated?)");
  if (std::string why = WhyNotARecord(j); !why.empty()) return why;
  const Json& result = j["result"];
  const int64_t error_no = result[1].get<int64_t>();
  if (error_no < 0 || error_no > 8) return std::string("error_no ") + std::to_string(error_no) + " is not one of AutoTVM's (0 to 8)";
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
