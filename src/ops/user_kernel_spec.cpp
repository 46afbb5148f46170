#include "ops/user_kernel_spec.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "core/rng.h"

namespace tt {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr size_t kMaxElements = size_t{1} << 31;

struct TypeInfo {
  const char* name;
  size_t bytes;
  bool floating;
};

const std::vector<TypeInfo>& Types() {
  static const std::vector<TypeInfo> types = {
      {"int8", 1, false},   {"uint8", 1, false}, {"int16", 2, false},  {"uint16", 2, false}, {"int32", 4, false},
      {"uint32", 4, false}, {"int64", 8, false}, {"uint64", 8, false}, {"float32", 4, true}, {"float64", 8, true},
  };
  return types;
}

const TypeInfo& TypeOf(const std::string& type) {
  for (const TypeInfo& t : Types())
    if (type == t.name) return t;
  throw UserError("unknown argument type '" + type +
                  "' (known: int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64)");
}

std::string CanonicalType(std::string type) {
  if (type == "float") return "float32";
  if (type == "double") return "float64";
  if (type == "int") return "int32";
  if (type == "uint") return "uint32";
  if (type == "long") return "int64";
  TypeOf(type);
  return type;
}

std::string Absolute(const std::string& file, const std::string& base_dir) {
  const fs::path path(file);
  return (path.is_absolute() ? path : fs::path(base_dir) / path).lexically_normal().string();
}

std::string ReadText(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read " + what + " '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

UserKernelData ReadData(const Json& j, const UserKernelArg& arg, const std::string& base_dir, const std::string& what) {
  UserKernelData d;
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "random") {
      d.kind = UserKernelData::Kind::kRandom;
    } else if (s == "zeros") {
      d.kind = UserKernelData::Kind::kZeros;
    } else {
      d.kind = UserKernelData::Kind::kFile;
      d.file = Absolute(s, base_dir);
      std::error_code error;
      const auto size = fs::file_size(d.file, error);
      if (error) throw UserError(what + ": cannot read '" + d.file + "'");
      if (size != arg.elements * arg.element_bytes)
        throw UserError(what + ": '" + d.file + "' holds " + std::to_string(size) + " bytes, not " +
                        std::to_string(arg.elements) + " elements of " + arg.type);
    }
  } else if (j.is_array()) {
    d.kind = UserKernelData::Kind::kValues;
    for (const Json& v : j) {
      if (!v.is_number()) throw UserError(what + ": the values are not all numbers");
      d.values.push_back(v.get<double>());
    }
    if (d.values.size() != arg.elements)
      throw UserError(what + ": " + std::to_string(d.values.size()) + " values for " + std::to_string(arg.elements) +
                      " elements");
  } else {
    throw UserError(what + ": expected \"random\", \"zeros\", a file name or a list of numbers");
  }
  return d;
}

UserKernelArg ReadArgument(const Json& j, size_t index, const std::string& base_dir) {
  const std::string what = "argument " + std::to_string(index);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw UserError(what + ": expected an object with a \"type\"");
  UserKernelArg arg;
  arg.type = CanonicalType(j["type"].get<std::string>());
  arg.element_bytes = TypeOf(arg.type).bytes;
  if (j.contains("value")) {
    if (!j["value"].is_number()) throw UserError(what + ": \"value\" is not a number");
    arg.scalar = true;
    arg.value = j["value"].get<double>();
    return arg;
  }
  if (!j.contains("size") || !j["size"].is_number_unsigned() || j["size"].get<uint64_t>() == 0 ||
      j["size"].get<uint64_t>() >= kMaxElements)
    throw UserError(what + ": expected a \"value\" (a scalar) or a \"size\" (elements of an array, 1 to 2^31-1)");
  arg.elements = j["size"].get<size_t>();
  arg.data = ReadData(j.contains("data") ? j["data"] : Json("zeros"), arg, base_dir, what);
  return arg;
}

UserTuneParam ReadParam(const std::string& name, const Json& list) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
    throw UserError("tunable parameter '" + name + "' is not an identifier");
  if (!list.is_array() || list.empty()) throw UserError("tune_params." + name + " is not a non-empty list");
  UserTuneParam p{name, {}, {}, true};
  for (const Json& v : list) {
    if (v.is_number_integer()) {
      p.labels.push_back(v.dump());
      p.numbers.push_back(v.get<double>());
    } else if (v.is_number()) {
      p.integers = false;
      std::ostringstream text;
      text.precision(17);
      text << v.get<double>();
      p.labels.push_back(text.str());
      p.numbers.push_back(v.get<double>());
    } else if (v.is_string() || v.is_boolean()) {
      p.integers = false;
      p.labels.push_back(v.is_string() ? v.get<std::string>() : (v.get<bool>() ? "1" : "0"));
      p.numbers.push_back(v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : std::numeric_limits<double>::quiet_NaN());
    } else {
      throw UserError("tune_params." + name + " holds " + v.dump() + ": values are numbers or strings");
    }
    for (size_t i = 0; i + 1 < p.labels.size(); ++i)
      if (p.labels[i] == p.labels.back()) throw UserError("tune_params." + name + " lists " + v.dump() + " twice");
  }
  return p;
}

std::vector<std::string> Strings(const Json& j, const std::string& what) {
  std::vector<std::string> out;
  const auto add = [&](const Json& v) {
    if (v.is_string())
      out.push_back(v.get<std::string>());
    else if (v.is_number_integer())
      out.push_back(v.dump());
    else
      throw UserError(what + ": expected strings");
  };
  if (j.is_array()) {
    for (const Json& v : j) add(v);
  } else if (!j.is_null()) {
    add(j);
  }
  return out;
}

Json DataJson(const UserKernelData& d) {
  switch (d.kind) {
    case UserKernelData::Kind::kRandom:
      return "random";
    case UserKernelData::Kind::kZeros:
      return "zeros";
    case UserKernelData::Kind::kFile:
      return d.file;
    case UserKernelData::Kind::kValues:
      return d.values;
  }
  return "zeros";
}

template <typename T>
void Put(std::vector<unsigned char>& bytes, size_t i, double v) {
  const T x = static_cast<T>(v);
  std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
}

void PutElement(const std::string& type, std::vector<unsigned char>& bytes, size_t i, double v) {
  if (type == "int8")
    Put<int8_t>(bytes, i, v);
  else if (type == "uint8")
    Put<uint8_t>(bytes, i, v);
  else if (type == "int16")
    Put<int16_t>(bytes, i, v);
  else if (type == "uint16")
    Put<uint16_t>(bytes, i, v);
  else if (type == "int32")
    Put<int32_t>(bytes, i, v);
  else if (type == "uint32")
    Put<uint32_t>(bytes, i, v);
  else if (type == "int64")
    Put<int64_t>(bytes, i, v);
  else if (type == "uint64")
    Put<uint64_t>(bytes, i, v);
  else if (type == "float32")
    Put<float>(bytes, i, v);
  else
    Put<double>(bytes, i, v);
}

template <typename T>
double Get(const unsigned char* bytes, size_t i) {
  T x;
  std::memcpy(&x, bytes + i * sizeof(T), sizeof(T));
  return static_cast<double>(x);
}

}  // namespace

bool UserKernelSpec::HasAnswer() const {
  for (const auto& a : arguments)
    if (a.answer) return true;
  return false;
}

UserKernelSpec ParseUserKernelSpec(std::string_view json_text, const std::string& base_dir) {
  Json j;
  try {
    j = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    throw UserError(std::string("kernel spec is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw UserError("kernel spec: expected a JSON object");
  UserKernelSpec s;
  try {
    if (!j.contains("kernel_name") || !j["kernel_name"].is_string() || j["kernel_name"].get<std::string>().empty())
      throw UserError("no \"kernel_name\"");
    s.kernel_name = j["kernel_name"].get<std::string>();
    if (j.contains("kernel_source") && j["kernel_source"].is_string()) {
      s.source = j["kernel_source"].get<std::string>();
    } else if (j.contains("kernel_file") && j["kernel_file"].is_string()) {
      s.source = ReadText(Absolute(j["kernel_file"].get<std::string>(), base_dir), "kernel file");
    } else {
      throw UserError("no \"kernel_file\" or \"kernel_source\"");
    }
    const Json size = j.contains("problem_size") ? j["problem_size"] : Json();
    for (const Json& v : size.is_array() ? size : Json::array({size})) {
      if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() >= kMaxElements)
        throw UserError("\"problem_size\" must be 1 to 3 positive integers");
      s.problem_size.push_back(v.get<int64_t>());
    }
    if (s.problem_size.empty() || s.problem_size.size() > 3)
      throw UserError("\"problem_size\" must be 1 to 3 positive integers");
    if (!j.contains("arguments") || !j["arguments"].is_array() || j["arguments"].empty())
      throw UserError("no \"arguments\" list");
    for (size_t i = 0; i < j["arguments"].size(); ++i)
      s.arguments.push_back(ReadArgument(j["arguments"][i], i, base_dir));
    if (!j.contains("tune_params") || !j["tune_params"].is_object() || j["tune_params"].empty())
      throw UserError("no \"tune_params\" object");
    for (const auto& [name, list] : j["tune_params"].items()) s.tune_params.push_back(ReadParam(name, list));
    s.restrictions = Strings(j.value("restrictions", Json()), "\"restrictions\"");
    const char* divs[] = {"grid_div_x", "grid_div_y", "grid_div_z"};
    for (int d = 0; d < 3; ++d) s.grid_div[d] = Strings(j.value(divs[d], Json()), divs[d]);
    if (j.contains("block_size_names")) {
      const auto names = Strings(j["block_size_names"], "\"block_size_names\"");
      if (names.empty() || names.size() > 3) throw UserError("\"block_size_names\" must name 1 to 3 parameters");
      for (size_t d = 0; d < names.size(); ++d) s.block_size_names[d] = names[d];
    }
    if (j.contains("answer")) {
      if (!j["answer"].is_array() || j["answer"].size() != s.arguments.size())
        throw UserError("\"answer\" must be a list with one entry (null or data) per argument");
      for (size_t i = 0; i < s.arguments.size(); ++i) {
        if (j["answer"][i].is_null()) continue;
        if (s.arguments[i].scalar) throw UserError("answer " + std::to_string(i) + ": argument is a scalar");
        s.arguments[i].answer = ReadData(j["answer"][i], s.arguments[i], base_dir, "answer " + std::to_string(i));
      }
    }
    s.atol = j.value("atol", 1e-6);
    s.iterations = j.value("iterations", 7);
    if (!(s.atol >= 0) || s.iterations < 1 || s.iterations > 10000)
      throw UserError("\"atol\" must be >= 0 and \"iterations\" 1 to 10000");
    const auto options = Strings(j.value("compiler_options", Json()), "\"compiler_options\"");
    for (const auto& o : options) s.compiler_options += (s.compiler_options.empty() ? "" : " ") + o;
    if (j.contains("reference_config")) {
      const Json& ref = j["reference_config"];
      for (const UserTuneParam& p : s.tune_params) {
        if (!ref.is_object() || !ref.contains(p.name))
          throw UserError("\"reference_config\" gives no value of " + p.name);
        const Json& v = ref[p.name];
        s.reference_config.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      }
    }
    if (j.contains("valid_configs")) s.valid_configs = j["valid_configs"].get<std::vector<std::vector<uint32_t>>>();
    if (j.contains("reference_launch")) {
      const Json& r = j["reference_launch"];
      s.reference_options = r.at("options").get<std::string>();
      s.reference_global = r.at("global").get<std::array<size_t, 3>>();
      s.reference_local = r.at("local").get<std::array<size_t, 3>>();
    }
  } catch (const Json::exception& e) {
    throw UserError(std::string("kernel spec: ") + e.what());
  } catch (const UserError& e) {
    throw UserError(std::string("kernel spec: ") + e.what());
  }
  return s;
}

std::string StagedSpecJson(const UserKernelSpec& s) {
  Json j;
  j["kernel_name"] = s.kernel_name;
  j["kernel_source"] = s.source;
  j["problem_size"] = s.problem_size;
  Json args = Json::array(), answers = Json::array();
  for (const UserKernelArg& a : s.arguments) {
    if (a.scalar) {
      args.push_back({{"type", a.type}, {"value", a.value}});
    } else {
      args.push_back({{"type", a.type}, {"size", a.elements}, {"data", DataJson(a.data)}});
    }
    answers.push_back(a.answer ? DataJson(*a.answer) : Json());
  }
  j["arguments"] = args;
  j["answer"] = answers;
  Json params = Json::object();
  for (const UserTuneParam& p : s.tune_params) params[p.name] = p.labels;
  j["tune_params"] = params;
  j["atol"] = s.atol;
  j["iterations"] = s.iterations;
  if (!s.reference_options.empty() || !s.reference_config.empty())
    j["reference_launch"] = {
        {"options", s.reference_options}, {"global", s.reference_global}, {"local", s.reference_local}};
  return j.dump();
}

std::vector<unsigned char> ArgumentBytes(const UserKernelArg& arg, const UserKernelData& data, uint64_t seed) {
  std::vector<unsigned char> bytes(arg.elements * arg.element_bytes, 0);
  switch (data.kind) {
    case UserKernelData::Kind::kZeros:
      break;
    case UserKernelData::Kind::kRandom: {
      // Small integers, as for the built-in templates: sums in any order are exact.
      Rng rng(seed);
      const bool floating = TypeOf(arg.type).floating;
      for (size_t i = 0; i < arg.elements; ++i)
        PutElement(arg.type, bytes, i,
                   floating ? static_cast<double>(static_cast<int>(rng.Below(5)) - 2) : double(rng.Below(5)));
      break;
    }
    case UserKernelData::Kind::kValues:
      for (size_t i = 0; i < arg.elements; ++i) PutElement(arg.type, bytes, i, data.values[i]);
      break;
    case UserKernelData::Kind::kFile: {
      std::ifstream in(data.file, std::ios::binary);
      if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
        throw UserError("cannot read " + std::to_string(bytes.size()) + " bytes from '" + data.file + "'");
      break;
    }
  }
  return bytes;
}

std::vector<unsigned char> ScalarBytes(const UserKernelArg& arg) {
  std::vector<unsigned char> bytes(arg.element_bytes);
  PutElement(arg.type, bytes, 0, arg.value);
  return bytes;
}

double ElementAt(const std::string& type, const unsigned char* bytes, size_t i) {
  if (type == "int8") return Get<int8_t>(bytes, i);
  if (type == "uint8") return Get<uint8_t>(bytes, i);
  if (type == "int16") return Get<int16_t>(bytes, i);
  if (type == "uint16") return Get<uint16_t>(bytes, i);
  if (type == "int32") return Get<int32_t>(bytes, i);
  if (type == "uint32") return Get<uint32_t>(bytes, i);
  if (type == "int64") return Get<int64_t>(bytes, i);
  if (type == "uint64") return Get<uint64_t>(bytes, i);
  if (type == "float32") return Get<float>(bytes, i);
  return Get<double>(bytes, i);
}

}  // namespace tt
