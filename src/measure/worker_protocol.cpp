#include "measure/worker_protocol.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/device_json.h"
#include "measure/json_message.h"

namespace tt {
namespace {

using nlohmann::json;

json GeometryToJson(const LaunchGeometry& g) { return {{"global", g.global}, {"local", g.local}, {"dims", g.dims}}; }

LaunchGeometry GeometryFromJson(const json& j) {
  LaunchGeometry g;
  g.global = j.at("global").get<std::array<size_t, 3>>();
  g.local = j.at("local").get<std::array<size_t, 3>>();
  g.dims = j.at("dims").get<unsigned>();
  return g;
}

json PrePassToJson(const PrePass& p) {
  return {{"kernel", p.kernel_name},
          {"input", p.input},
          {"scratch_elements", p.scratch_elements},
          {"geometry", GeometryToJson(p.geometry)}};
}

PrePass PrePassFromJson(const json& j) {
  return {j.at("kernel").get<std::string>(), j.at("input").get<size_t>(), j.at("scratch_elements").get<size_t>(),
          GeometryFromJson(j.at("geometry"))};
}

}  // namespace

std::string EncodeHello(const WorkerHello& hello) {
  if (hello.device) return DumpMessage({{"device", DeviceToJson(*hello.device)}});
  return DumpMessage({{"error", hello.error}, {"error_kind", hello.user_error ? "user" : "environment"}});
}

std::optional<WorkerHello> DecodeHello(std::string_view line) {
  return DecodeMessage(line, [](const json& j) {
    WorkerHello hello;
    if (j.contains("device")) {
      hello.device = DeviceFromJson(j.at("device"));
    } else {
      hello.error = j.at("error").get<std::string>();
      hello.user_error = j.at("error_kind").get<std::string>() == "user";
    }
    return hello;
  });
}

namespace {

constexpr WorkerRequest::Kind kKinds[] = {WorkerRequest::Kind::kPrepare, WorkerRequest::Kind::kMeasure,
                                          WorkerRequest::Kind::kBuild};

std::string_view KindName(WorkerRequest::Kind kind) {
  switch (kind) {
    case WorkerRequest::Kind::kPrepare:
      return "prepare";
    case WorkerRequest::Kind::kMeasure:
      return "measure";
    case WorkerRequest::Kind::kBuild:
      return "build";
  }
  return "measure";
}

}  // namespace

std::string EncodeRequest(const WorkerRequest& r) {
  json j = {{"kind", KindName(r.kind)},
            {"template", r.template_name},
            {"workload", r.workload_key},
            {"options", r.build_options},
            {"geometry", GeometryToJson(r.geometry)},
            {"flops", r.flops},
            {"min_time_s", r.min_time_s},
            {"max_repeats", r.max_repeats},
            {"give_up_slower_than_s", r.give_up_slower_than_s}};
  if (r.pre_pass) j["pre_pass"] = PrePassToJson(*r.pre_pass);
  if (!r.user_kernel.empty()) j["user_kernel"] = r.user_kernel;
  return DumpMessage(j);
}

std::optional<WorkerRequest> DecodeRequest(std::string_view line) {
  return DecodeMessage(line, [](const json& j) {
    WorkerRequest r;
    const std::string kind = j.at("kind").get<std::string>();
    const auto known = std::find_if(std::begin(kKinds), std::end(kKinds), [&](auto k) { return KindName(k) == kind; });
    if (known == std::end(kKinds)) throw json::other_error::create(501, "unknown kind", &j);
    r.kind = *known;
    r.template_name = j.at("template").get<std::string>();
    r.workload_key = j.at("workload").get<std::string>();
    r.build_options = j.at("options").get<std::string>();
    r.geometry = GeometryFromJson(j.at("geometry"));
    if (j.contains("pre_pass")) r.pre_pass = PrePassFromJson(j.at("pre_pass"));
    r.flops = j.at("flops").get<double>();
    r.min_time_s = j.at("min_time_s").get<double>();
    r.max_repeats = j.at("max_repeats").get<int>();
    r.give_up_slower_than_s = j.value("give_up_slower_than_s", 0.0);
    r.user_kernel = j.value("user_kernel", std::string());
    return r;
  });
}

std::string EncodeResult(const MeasureResult& r) {
  return DumpMessage({{"status", ToString(r.status)},
                      {"times_s", r.times_s},
                      {"time_s", r.time_s},
                      {"gflops", r.gflops},
                      {"compile_s", r.compile_s},
                      {"first_launch_s", r.first_launch_s},
                      {"verify_s", r.verify_s},
                      {"timed_s", r.timed_s},
                      {"error", r.error}});
}

std::optional<MeasureResult> DecodeResult(std::string_view line) {
  return DecodeMessage(line, [](const json& j) {
    MeasureResult r;
    const auto status = ParseMeasureStatus(j.at("status").get<std::string>());
    if (!status) throw json::other_error::create(501, "unknown status", &j);
    r.status = *status;
    r.times_s = j.at("times_s").get<std::vector<double>>();
    r.time_s = j.at("time_s").get<double>();
    r.gflops = j.at("gflops").get<double>();
    r.compile_s = j.at("compile_s").get<double>();
    r.first_launch_s = j.value("first_launch_s", 0.0);
    r.verify_s = j.value("verify_s", 0.0);
    r.timed_s = j.value("timed_s", 0.0);
    r.error = j.at("error").get<std::string>();
    return r;
  });
}

}  // namespace tt
