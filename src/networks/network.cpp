#include "networks/network.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "core/errors.h"
#include "networks/onnx_model.h"
#include "ops/kernel_template.h"

namespace tt::embedded {
extern const std::pair<std::string_view, std::string_view> networks[];
extern const std::size_t networks_count;
}  // namespace tt::embedded

namespace tt {
namespace {

using nlohmann::json;

// What a network file may ask for. Real networks have hundreds of layers and tens of distinct
// tasks; a file of 100,000 distinct layers once grew tune-network to 24 GB.
constexpr uintmax_t kMaxFileBytes = 16 << 20;
constexpr size_t kMaxLayers = 10'000;
constexpr size_t kMaxTasks = 500;

// "{batch}" and "{batch*K}" in a shape, replaced by the batch size (times K).
std::string ExpandBatch(const std::string& shape, int64_t batch) {
  static const std::regex placeholder(R"(\{batch(\*([0-9]{1,9}))?\})");
  std::string out;
  auto begin = std::sregex_iterator(shape.begin(), shape.end(), placeholder);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const int64_t factor = (*it)[2].matched ? std::stoll((*it)[2].str()) : 1;
    if (factor != 0 && batch > std::numeric_limits<int64_t>::max() / factor)
      throw UserError("batch " + std::to_string(batch) + " is too large for shape '" + shape + "'");
    out += shape.substr(last, static_cast<size_t>(it->position()) - last) + std::to_string(batch * factor);
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + shape.substr(last);
}

Workload LayerWorkload(const NetworkLayer& layer, int64_t batch) {
  return ParseWorkload(layer.op, ExpandBatch(layer.shape, batch), layer.flags);
}

[[noreturn]] void Fail(std::string_view source, const std::string& where, const std::string& problem) {
  throw UserError("network " + std::string(source) + ": " + where + ": " + problem);
}

std::string TextField(const json& object, const char* field, std::string_view source, const std::string& where,
                      bool required) {
  const auto it = object.find(field);
  if (it == object.end()) {
    if (required) Fail(source, where, std::string("field '") + field + "' is missing");
    return {};
  }
  if (!it->is_string() || it->get<std::string>().empty())
    Fail(source, where, std::string("field '") + field + "' must be a non-empty string");
  return it->get<std::string>();
}

NetworkLayer ParseLayer(const json& j, size_t index, std::string_view source) {
  std::string where = "layers[" + std::to_string(index) + "]";
  if (!j.is_object()) Fail(source, where, "a layer must be an object with \"op\" and \"shape\"");
  static const std::vector<std::string> kFields{"name", "op", "shape", "flags", "repeat"};
  for (const auto& [key, value] : j.items())
    if (std::find(kFields.begin(), kFields.end(), key) == kFields.end())
      Fail(source, where, "unknown field '" + key + "' (known: name, op, shape, flags, repeat)");
  NetworkLayer layer;
  layer.name = TextField(j, "name", source, where, false);
  if (layer.name.empty()) layer.name = "layer" + std::to_string(index);
  where += " (\"" + layer.name + "\")";
  layer.op = TextField(j, "op", source, where, true);
  layer.shape = TextField(j, "shape", source, where, true);
  if (const auto it = j.find("flags"); it != j.end()) {
    if (!it->is_array()) Fail(source, where, "field 'flags' must be a list of names");
    for (const auto& flag : *it) {
      if (!flag.is_string()) Fail(source, where, "field 'flags' must be a list of names");
      layer.flags.push_back(flag.get<std::string>());
    }
  }
  if (const auto it = j.find("repeat"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > 1'000'000)
      Fail(source, where, "field 'repeat' must be a whole number from 1 to 1000000");
    layer.repeat = it->get<int64_t>();
  }
  try {
    LayerWorkload(layer, 1);
  } catch (const UserError& e) {
    Fail(source, where, std::string("field 'op'/'shape': ") + e.what());
  }
  return layer;
}

}  // namespace

Network ParseNetwork(std::string_view json_text, std::string_view source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    // The parser's message carries "at line L, column C".
    std::string what = e.what();
    const auto at = what.find("at line");
    Fail(source, at == std::string::npos ? "syntax" : what.substr(at, what.find(':', at) - at),
         "not valid JSON (" + what + ")");
  }
  if (!j.is_object()) Fail(source, "top level", "expected an object with \"name\" and \"layers\"");
  Network network;
  network.name = TextField(j, "name", source, "top level", true);
  network.description =
      j.contains("description") && j["description"].is_string() ? j["description"].get<std::string>() : "";
  const auto layers = j.find("layers");
  if (layers == j.end() || !layers->is_array() || layers->empty())
    Fail(source, "top level", "field 'layers' must be a non-empty list");
  if (layers->size() > kMaxLayers)
    Fail(source, "top level",
         "field 'layers' has " + std::to_string(layers->size()) + " layers; at most " + std::to_string(kMaxLayers) +
             " are accepted");
  for (size_t i = 0; i < layers->size(); ++i) network.layers.push_back(ParseLayer((*layers)[i], i, source));
  return network;
}

std::vector<Network> BuiltinNetworks() {
  std::vector<Network> networks;
  for (size_t i = 0; i < embedded::networks_count; ++i)
    networks.push_back(ParseNetwork(embedded::networks[i].second, embedded::networks[i].first));
  return networks;
}

std::pair<std::string, std::vector<int64_t>> ParseInputShape(std::string_view text) {
  const auto problem = [&] {
    return UserError("malformed --input-shape '" + std::string(text) +
                     "': expected an input's name and its dimensions, name=1,3,224,224 (each at least 1)");
  };
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) throw problem();
  std::vector<int64_t> dims;
  size_t start = eq + 1;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item(text.substr(start, end - start));
    if (item.empty() || item.size() > 10 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw problem();
    const int64_t value = std::stoll(item);
    if (value < 1 || value >= (int64_t{1} << 31)) throw problem();
    dims.push_back(value);
    start = end + 1;
  }
  return {std::string(text.substr(0, eq)), dims};
}

Network LoadNetwork(const std::string& name_or_path, const NetworkLoadOptions& options) {
  std::string known;
  for (Network& n : BuiltinNetworks()) {
    if (n.name == name_or_path) {
      if (!options.input_shapes.empty())
        throw UserError("--input-shape applies to ONNX models; " + n.name + " is a built-in network (use --batch)");
      return std::move(n);
    }
    known += (known.empty() ? "" : ", ") + n.name;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec))
    throw UserError("no built-in network '" + name_or_path + "' (known: " + known + ") and no such file");
  if (IsOnnxFile(name_or_path)) return LoadOnnxNetwork(name_or_path, options);
  if (!options.input_shapes.empty())
    throw UserError("--input-shape applies to ONNX models; " + name_or_path + " is a JSON network (use --batch)");
  if (const uintmax_t size = std::filesystem::file_size(name_or_path, ec); !ec && size > kMaxFileBytes)
    throw UserError("network " + name_or_path + ": the file has " + std::to_string(size) + " bytes; at most " +
                    std::to_string(kMaxFileBytes) + " are accepted");
  std::ifstream in(name_or_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw UserError("network " + name_or_path + ": cannot read the file");
  return ParseNetwork(text.str(), name_or_path);
}

std::vector<NetworkTask> NetworkTasks(const Network& network, int64_t batch) {
  if (batch < 1) throw UserError("--batch must be at least 1");
  if (network.batch && batch != *network.batch)
    throw UserError("network " + network.name + " has its shapes fixed at batch " + std::to_string(*network.batch) +
                    "; load it again at batch " + std::to_string(batch));
  std::vector<NetworkTask> tasks;
  std::unordered_map<std::string, size_t> by_key;  // workload key -> task
  for (const NetworkLayer& layer : network.layers) {
    Workload workload;
    try {
      workload = LayerWorkload(layer, batch);
    } catch (const UserError& e) {
      throw UserError("network " + network.name + ", layer \"" + layer.name + "\" at batch " + std::to_string(batch) +
                      ": " + e.what());
    }
    const auto [index, added] = by_key.emplace(workload.Key(), tasks.size());
    if (added) {
      if (tasks.size() == kMaxTasks)
        throw UserError("network " + network.name + " has more than " + std::to_string(kMaxTasks) +
                        " distinct layers (tasks) at batch " + std::to_string(batch) + "; at most " +
                        std::to_string(kMaxTasks) + " are accepted");
      tasks.push_back(NetworkTask{std::move(workload), 0, {}});
    }
    NetworkTask& same = tasks[index->second];
    same.weight += layer.repeat;
    same.layers.push_back(layer.name);
  }
  return tasks;
}

double WorkloadFlops(const Workload& workload) { return TemplatesFor(workload.op).front()->Flops(workload); }

}  // namespace tt
