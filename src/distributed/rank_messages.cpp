#include "distributed/rank_messages.h"

#include <nlohmann/json.hpp>

#include "measure/json_message.h"

namespace tt {
namespace {

using nlohmann::json;

[[noreturn]] void Malformed(const json& j) { throw json::other_error::create(501, "malformed part", &j); }

}  // namespace

std::string EncodeSetup(const RankSetup& s) {
  return DumpMessage({{"timeout_s", s.timeout_s},
                      {"builders", s.builders},
                      {"min_time_s", s.min_time_s},
                      {"max_repeats", s.max_repeats}});
}

std::optional<RankSetup> DecodeSetup(std::string_view text) {
  return DecodeMessage(text, [](const json& j) {
    return RankSetup{j.at("timeout_s").get<double>(), j.at("builders").get<int>(), j.at("min_time_s").get<double>(),
                     j.at("max_repeats").get<int>()};
  });
}

std::string EncodeRankHello(const RankHello& h) {
  return DumpMessage({{"hello", EncodeHello(h.hello)}, {"host", h.host}, {"device_spec", h.device_spec}});
}

std::optional<RankHello> DecodeRankHello(std::string_view text) {
  return DecodeMessage(text, [](const json& j) {
    auto hello = DecodeHello(j.at("hello").get<std::string>());
    if (!hello) Malformed(j);
    return RankHello{std::move(*hello), j.at("host").get<std::string>(), j.at("device_spec").get<std::string>()};
  });
}

std::string EncodeWork(const RankWork& w) {
  return DumpMessage({{"template", w.template_name},
                      {"workload", w.workload_key},
                      {"best_time_s", w.best_time_s},
                      {"ids", w.ids},
                      {"configs", w.configs}});
}

std::optional<RankWork> DecodeWork(std::string_view text) {
  return DecodeMessage(text, [](const json& j) {
    RankWork w{j.at("template").get<std::string>(), j.at("workload").get<std::string>(),
               j.at("best_time_s").get<double>(), j.at("ids").get<std::vector<int64_t>>(),
               j.at("configs").get<std::vector<std::string>>()};
    if (w.ids.size() != w.configs.size()) Malformed(j);
    return w;
  });
}

// The worker protocol's result, plus what it leaves to the parent that reads it.
std::string EncodeResults(const RankResults& r) {
  json items = json::array();
  for (size_t i = 0; i < r.results.size(); ++i)
    items.push_back({{"id", r.ids.at(i)},
                     {"result", EncodeResult(r.results[i])},
                     {"transient", r.results[i].transient},
                     {"wall_s", r.results[i].wall_s}});
  return DumpMessage({{"items", items}, {"broken", r.broken}});
}

std::optional<RankResults> DecodeResults(std::string_view text) {
  return DecodeMessage(text, [](const json& j) {
    RankResults r;
    for (const json& item : j.at("items")) {
      auto result = DecodeResult(item.at("result").get<std::string>());
      if (!result) Malformed(j);
      result->transient = item.at("transient").get<bool>();
      result->wall_s = item.at("wall_s").get<double>();
      r.ids.push_back(item.at("id").get<int64_t>());
      r.results.push_back(std::move(*result));
    }
    r.broken = j.at("broken").get<std::string>();
    return r;
  });
}

std::string EncodeStop(const RankStop& s) { return DumpMessage({{"finalize", s.finalize}}); }

std::optional<RankStop> DecodeStop(std::string_view text) {
  return DecodeMessage(text, [](const json& j) { return RankStop{j.at("finalize").get<bool>()}; });
}

}  // namespace tt
