#include "interchange/kernel_tuner_cache.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>

#include "core/errors.h"
#include "interchange/json_depth.h"

namespace tt {
namespace {

// Entries in file order, so that bad ones are reported as they come.
using Json = nlohmann::ordered_json;
constexpr size_t kMaxKnobValues = 1 << 16;

// One tunable parameter: the knob's values and the file's values they stand for.
struct Param {
  std::string name;
  bool ordered = false;
  std::vector<int64_t> values;  // the integers themselves, or ranks for other numbers
  std::vector<Json> originals;  // in the file's order; originals[i] is values[i]
};

Param ReadParam(const std::string& name, const Json& list) {
  const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!identifier) throw UserError("tunable parameter name '" + name + "' is not an identifier");
  if (!list.is_array() || list.empty() || list.size() > kMaxKnobValues)
    throw UserError("tune_params." + name + " is not a non-empty list");
  Param p{name, true, {}, {}};
  bool integers = true;
  for (const Json& v : list) {
    if (!v.is_number() || (v.is_number_float() && !std::isfinite(v.get<double>()))) p.ordered = false, integers = false;
    if (!v.is_number_integer()) integers = false;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (list[j] == list[i]) throw UserError("tune_params." + name + " lists " + list[i].dump() + " twice");
    p.originals.push_back(list[i]);
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (integers) {
      p.values.push_back(list[i].get<int64_t>());
    } else if (p.ordered) {  // rank among the numbers
      p.values.push_back(std::count_if(list.begin(), list.end(),
                                       [&](const Json& o) { return o.get<double>() < list[i].get<double>(); }));
    } else {
      p.values.push_back(static_cast<int64_t>(i));
    }
  }
  return p;
}

Json SpaceJson(const std::vector<Param>& params) {
  Json knobs = Json::array();
  for (const Param& p : params) {
    Json labels = Json::array();
    for (const Json& v : p.originals) labels.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    knobs.push_back(
        {{"name", p.name}, {"kind", p.ordered ? "discrete" : "categorical"}, {"values", p.values}, {"labels", labels}});
  }
  return {{"knobs", knobs}};
}

// Kernel Tuner's failures are strings in place of the time (older versions wrote 1e20):
// the names of its ErrorConfig classes, and an older spelling of the compile failure.
std::optional<MeasureStatus> FailureStatus(const std::string& name) {
  if (name == "InvalidConfig") return MeasureStatus::kInvalidConfig;
  if (name == "CompilationFailedConfig" || name == "CompileFailedConfig") return MeasureStatus::kCompileError;
  if (name == "RuntimeFailedConfig" || name == "ErrorConfig") return MeasureStatus::kRuntimeError;
  return std::nullopt;
}

MeasureResult ResultOf(const Json& entry) {
  if (!entry.contains("time")) throw UserError("no \"time\"");
  const Json& time = entry["time"];
  if (time.is_string()) {
    const std::string what = time.get<std::string>();
    if (const auto status = FailureStatus(what)) return MeasureResult::Failure(*status, "Kernel Tuner: " + what);
    char* end = nullptr;
    std::strtod(what.c_str(), &end);
    if (!what.empty() && end == what.c_str() + what.size())
      throw UserError("\"time\" is the string " + time.dump() + ", not a number");
    throw UserError("\"time\" is " + time.dump() +
                    ", neither milliseconds nor a Kernel Tuner failure (InvalidConfig, CompilationFailedConfig, "
                    "RuntimeFailedConfig)");
  }
  if (!time.is_number() || !std::isfinite(time.get<double>()) || time.get<double>() < 0)
    throw UserError("\"time\" is " + time.dump() + ", not a time in milliseconds");
  if (time.get<double>() >= 1e20)
    return MeasureResult::Failure(MeasureStatus::kRuntimeError, "Kernel Tuner: failed (1e20)");
  std::vector<double> times;
  if (entry.contains("times") && entry["times"].is_array())
    for (const Json& t : entry["times"])
      if (t.is_number() && std::isfinite(t.get<double>()) && t.get<double>() > 0)
        times.push_back(t.get<double>() * 1e-3);
  if (times.empty()) times.push_back(time.get<double>() * 1e-3);
  const double compile_ms =
      entry.contains("compile_time") && entry["compile_time"].is_number() ? entry["compile_time"].get<double>() : 0;
  MeasureResult r =
      MeasureResult::Success(times, kUserSpaceFlops, std::isfinite(compile_ms) ? std::max(0.0, compile_ms * 1e-3) : 0);
  // Kernel Tuner's objective is its "time" (a mean); keep it rather than our median.
  r.time_s = time.get<double>() * 1e-3;
  r.gflops = r.time_s > 0 ? kUserSpaceFlops / r.time_s * 1e-9 : 0;
  return r;
}

// A parameter value as Python's str() writes it into a cache key.
std::string KeyText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_array()) {
    std::string text = "[";
    for (size_t i = 0; i < v.size(); ++i)
      text += (i ? ", " : "") + (v[i].is_string() ? "'" + KeyText(v[i]) + "'" : KeyText(v[i]));
    return text + "]";
  }
  return v.dump();
}

std::optional<double> Number(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Whether `key` is the one Kernel Tuner writes for `values`: joined by commas, field by field
// equal, numbers up to float precision (a float32 parameter prints shorter than its double).
bool KeyNames(const std::string& key, const std::vector<std::string>& values) {
  std::string joined;
  for (size_t i = 0; i < values.size(); ++i) joined += (i ? "," : "") + values[i];
  if (key == joined) return true;
  std::vector<std::string> fields;
  for (size_t start = 0;;) {
    const size_t comma = key.find(',', start);
    fields.push_back(key.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (fields.size() != values.size()) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (fields[i] == values[i]) continue;
    const auto a = Number(fields[i]), b = Number(values[i]);
    if (!a || !b || std::abs(*a - *b) > 1e-6 * std::max(std::abs(*a), std::abs(*b))) return false;
  }
  return true;
}

// "2023-06-13T08:37:32.590150+00:00" or "2023-06-13 08:37:32" -> "2023-06-13T08:37:32.590Z".
std::string IsoTime(const Json& entry) {
  if (!entry.contains("timestamp") || !entry["timestamp"].is_string()) return "";
  std::string t = entry["timestamp"].get<std::string>();
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' || t[13] != ':' || t[16] != ':') return "";
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return "";
  std::string ms = "000";
  if (t.size() > 20 && t[19] == '.')
    for (size_t i = 0; i < 3 && 20 + i < t.size() && std::isdigit(static_cast<unsigned char>(t[20 + i])); ++i)
      ms[i] = t[20 + i];
  return t.substr(0, 10) + "T" + t.substr(11, 8) + "." + ms + "Z";
}

KernelTunerTrial ReadEntry(const std::string& key, const Json& entry, const std::vector<Param>& params,
                           const ConfigSpace& space) {
  if (!entry.is_object()) throw UserError("not an object");
  Config config(params.size());
  std::vector<std::string> key_texts;
  for (size_t k = 0; k < params.size(); ++k) {
    if (!entry.contains(params[k].name)) throw UserError("no value for " + params[k].name);
    const auto& o = params[k].originals;
    const auto it = std::find(o.begin(), o.end(), entry[params[k].name]);
    if (it == o.end())
      throw UserError(params[k].name + " = " + entry[params[k].name].dump() + " is not among its tune_params");
    config[k] = *space.knob(k).Find({params[k].values[static_cast<size_t>(it - o.begin())]});
    key_texts.push_back(KeyText(*it));
  }
  if (!KeyNames(key, key_texts)) {
    std::string named;
    for (const auto& t : key_texts) named += (named.empty() ? "" : ",") + t;
    throw UserError("the key does not match the entry's parameters (" + named + ")");
  }
  return {key, space.Key(config), space.ToJson(config), ResultOf(entry), IsoTime(entry)};
}

Workload WorkloadOf(const Json& problem_size) {
  Workload w{kUserSpaceOp, {}};
  const Json sizes = problem_size.is_array() ? problem_size : Json::array({problem_size});
  for (size_t i = 0; i < sizes.size() && i < 8; ++i)
    if (sizes[i].is_number_integer()) w.dims.emplace_back("p" + std::to_string(i), sizes[i].get<int64_t>());
  return w;
}

std::string Field(const Json& j, const char* name) {
  if (!j.contains(name) || !j[name].is_string() || j[name].get<std::string>().empty())
    throw UserError(std::string("no \"") + name + "\"");
  return j[name].get<std::string>();
}

// Keys that an object gives twice, by their path from the top ({"cache", "16,2"}): JSON
// readers keep the last silently. Found by a SAX pass, before the document is built.
class DuplicateKeys : public nlohmann::json_sax<Json> {
 public:
  std::vector<std::vector<std::string>> found;

  bool key(string_t& k) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      std::vector<std::string> path;
      for (const Frame& outer : frames_)
        if (&outer != &f) path.push_back(outer.key);
      path.push_back(k);
      found.push_back(std::move(path));
    }
    f.key = k;
    return true;
  }
  bool start_object(std::size_t) override { return Push(true); }
  bool end_object() override { return Pop(); }
  bool start_array(std::size_t) override { return Push(false); }
  bool end_array() override { return Pop(); }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;  // the latest, or "[]" inside an array
  };
  bool Push(bool object) {
    frames_.push_back({object, {}, object ? "" : "[]"});
    return true;
  }
  bool Pop() {
    frames_.pop_back();
    return true;
  }
  std::vector<Frame> frames_;
};

// The document, and whether it is in Kernel Tuner's open format: a cache written while tuning
// lacks its closing "}\n}" and may end in a comma; Kernel Tuner closes it before reading.
std::pair<Json, bool> ParseCacheText(std::string_view text) {
  try {
    return {Json::parse(text.begin(), text.end()), false};
  } catch (const Json::parse_error& e) {
    std::string closed(text);
    closed.erase(closed.find_last_not_of(" \t\r\n") + 1);
    if (!closed.empty() && closed.back() == ',') closed.pop_back();
    closed += "}\n}";
    Json j = Json::parse(closed, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object() && j.contains("cache")) return {std::move(j), true};
    const size_t at = std::min<size_t>(e.byte, text.size());
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at > 0 ? at - 1 : 0), '\n');
    throw UserError("line " + std::to_string(line) + ": not valid JSON (truncated?)");
  } catch (const Json::exception& e) {  // a number too large for a double, ...
    throw UserError(std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace

bool LooksLikeKernelTunerCache(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{' &&
         text.find("\"tune_params_keys\"") != std::string_view::npos;
}

KernelTunerCache ParseKernelTunerCache(std::string_view text) {
  // A cache file nests four levels deep (entries, their lists of times).
  if (NestsTooDeep(text, 16)) throw UserError("nested too deeply to be a Kernel Tuner cache file");
  KernelTunerCache cache;
  Json j;
  std::tie(j, cache.open) = ParseCacheText(text);
  if (!j.is_object()) throw UserError("not a Kernel Tuner cache file");
  DuplicateKeys duplicates;
  Json::sax_parse(text.begin(), text.end(), &duplicates, nlohmann::detail::input_format_t::json, /*strict=*/false);
  std::map<std::string, std::string> bad_entries;  // key -> why
  for (const auto& path : duplicates.found) {
    if (path.size() == 2 && path[0] == "cache")  // the earlier entry is the bad line; the later is read
      cache.errors.push_back("cache entry '" + path[1] +
                             "': its key is given again later in the file, whose entry is read");
    else if (path.size() == 3 && path[0] == "cache")
      bad_entries.emplace(path[1], "gives \"" + path[2] + "\" twice");
    else if (path.size() >= 2 && path[0] == "cache")
      bad_entries.emplace(path[1], "gives a value twice");
    else
      throw UserError("gives \"" + path.back() + "\" twice" + (path.size() > 1 ? " in \"" + path[0] + "\"" : ""));
  }
  cache.kernel_name = Field(j, "kernel_name");
  // Some published caches leave device_name empty: the caller names the device then.
  if (j.contains("device_name") && !j["device_name"].is_string() && !j["device_name"].is_null())
    throw UserError("\"device_name\" is not a string");
  const std::string device_name =
      j.contains("device_name") && j["device_name"].is_string() ? j["device_name"].get<std::string>() : "";
  cache.device = {"Kernel Tuner", device_name, "", "gpu", 0, 0, 0, 0, true};
  const Json& keys = j.contains("tune_params_keys") ? j["tune_params_keys"] : Json();
  const Json& lists = j.contains("tune_params") ? j["tune_params"] : Json();
  if (!keys.is_array() || keys.empty() || !lists.is_object()) throw UserError("no tune_params_keys and tune_params");
  std::vector<Param> params;
  for (const Json& key : keys) {
    if (!key.is_string() || !lists.contains(key.get<std::string>()))
      throw UserError("tune_params_keys names a parameter tune_params lacks");
    for (const Param& p : params)
      if (p.name == key.get<std::string>()) throw UserError("tune_params_keys names " + p.name + " twice");
    params.push_back(ReadParam(key.get<std::string>(), lists[key.get<std::string>()]));
  }
  cache.space_json = SpaceJson(params).dump();
  cache.workload = WorkloadOf(j.contains("problem_size") ? j["problem_size"] : Json());
  const ConfigSpace space = UserSpaceFromJson(cache.space_json, {});
  if (space.Size() == UINT64_MAX) throw UserError("the space of its tune_params is too large");
  const Json& entries = j.contains("cache") ? j["cache"] : Json();
  if (!entries.is_object()) throw UserError("no \"cache\" object");
  std::map<std::string, std::string> first_with_config;  // config key -> cache key
  for (const auto& [key, entry] : entries.items()) {
    try {
      if (const auto bad = bad_entries.find(key); bad != bad_entries.end()) throw UserError(bad->second);
      KernelTunerTrial trial = ReadEntry(key, entry, params, space);
      if (const auto [it, added] = first_with_config.emplace(trial.config_key, key); !added)
        throw UserError("the same configuration as entry '" + it->second + "'");
      cache.trials.push_back(std::move(trial));
    } catch (const UserError& e) {
      cache.errors.push_back("cache entry '" + key + "': " + e.what());
    } catch (const Json::exception& e) {
      cache.errors.push_back("cache entry '" + key + "': " + e.what());
    }
  }
  return cache;
}

ConfigSpace UserSpaceFromJson(std::string_view space_json, const std::vector<std::string>& valid_keys) {
  ConfigSpace space;
  try {
    const Json j = Json::parse(space_json);
    for (const Json& k : j.at("knobs")) {
      const auto values = k.at("values").get<std::vector<int64_t>>();
      const std::string name = k.at("name").get<std::string>();
      space.AddKnob(k.at("kind") == "discrete" ? Knob::Discrete(name, values) : Knob::Categorical(name, values));
    }
  } catch (const Json::exception& e) {
    throw UserError(std::string("malformed user-defined space: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw UserError(std::string("malformed user-defined space: ") + e.what());
  }
  if (valid_keys.empty()) return space;
  auto valid = std::make_shared<std::unordered_set<uint64_t>>();
  for (const auto& key : valid_keys)
    if (const auto config = space.FromKey(key)) valid->insert(space.ToIndex(*config));
  space.AddConstraint([valid](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (valid->count(s.ToIndex(c))) return std::nullopt;
    return "not a configuration of the Kernel Tuner space (its restrictions rule it out)";
  });
  return space;
}

}  // namespace tt
