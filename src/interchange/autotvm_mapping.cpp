#include "interchange/autotvm_mapping.h"

#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "core/errors.h"
#include "interchange/iso_time.h"
#include "interchange/workload_text.h"

namespace tt {
namespace {

using Json = nlohmann::json;
constexpr const char* kNativePrefix = "tensortune.";
constexpr const char* kImportedPlatform = "AutoTVM";

struct AutoTvmTask {
  const char* task_name;
  const char* sketch;
  const char* op;
};
constexpr AutoTvmTask kTasks[] = {
    {"conv2d_nchw.cuda", "conv2d_direct_local", "conv2d"},
    {"depthwise_conv2d_nchw.cuda", "depthwise_conv2d_direct", "depthwise_conv2d"},
};

// AutoTVM's MeasureErrorNo, as our statuses.
constexpr MeasureStatus kStatusOfError[] = {
    MeasureStatus::kOk,           MeasureStatus::kInvalidConfig, MeasureStatus::kCompileError,
    MeasureStatus::kCompileError, MeasureStatus::kRuntimeError,  MeasureStatus::kWrongAnswer,
    MeasureStatus::kTimeout,      MeasureStatus::kTimeout,       MeasureStatus::kRuntimeError};
constexpr const char* kErrorNames[] = {"NO_ERROR",       "INSTANTIATION_ERROR", "COMPILE_HOST",
                                       "COMPILE_DEVICE", "RUNTIME_DEVICE",      "WRONG_ANSWER",
                                       "BUILD_TIMEOUT",  "RUN_TIMEOUT",         "UNKNOWN_ERROR"};

int ErrorNoOf(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return 0;
    case MeasureStatus::kInvalidConfig:
      return 1;
    case MeasureStatus::kCompileError:
      return 3;
    case MeasureStatus::kRuntimeError:
      return 4;
    case MeasureStatus::kWrongAnswer:
      return 5;
    case MeasureStatus::kTimeout:
      return 7;
  }
  return 8;
}

// A scalar or a list of equal values: AutoTVM writes strides 2 or [2, 2], padding 1, [1, 1] or
// [1, 1, 1, 1]. nullopt when the values differ (a shape our sketches cannot express).
std::optional<int64_t> Uniform(const Json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (!j.is_array() || j.empty()) return std::nullopt;
  for (const Json& x : j)
    if (!x.is_number_integer() || x != j[0]) return std::nullopt;
  return j[0].get<int64_t>();
}

std::optional<std::vector<int64_t>> TensorShape(const Json& j, size_t rank) {
  if (!j.is_array() || j.size() < 3 || j[0] != "TENSOR" || !j[1].is_array() || j[1].size() != rank) return std::nullopt;
  std::vector<int64_t> shape;
  for (const Json& x : j[1]) {
    if (!x.is_number_integer()) return std::nullopt;
    shape.push_back(x.get<int64_t>());
  }
  return shape;
}

struct ShapeOrWhy {
  std::string shape;
  RecordMapping::Outcome why_kind = RecordMapping::Outcome::kMapped;
  std::string why;
};

// The conv2d / depthwise_conv2d shape text of conv2d_nchw / depthwise_conv2d_nchw arguments
// [data, kernel, strides, padding, dilation, out_dtype].
ShapeOrWhy ConvShapeText(const Json& args, bool depthwise) {
  using O = RecordMapping::Outcome;
  if (!args.is_array() || args.size() != 6)
    return {"", O::kBad, "arguments are not [data, kernel, strides, padding, dilation, dtype]"};
  const auto data = TensorShape(args[0], 4), weight = TensorShape(args[1], 4);
  if (!data || !weight) return {"", O::kBad, "data or kernel is not a 4-D tensor"};
  if (args[0][2] != "float32" || args[5] != "float32") return {"", O::kSkipped, "not float32"};
  const auto stride = Uniform(args[2]), pad = Uniform(args[3]), dilation = Uniform(args[4]);
  if (!stride || !pad || !dilation) return {"", O::kSkipped, "stride, padding or dilation differ between axes"};
  const auto& d = *data;
  const auto& k = *weight;
  std::string shape = "n=" + std::to_string(d[0]) + (depthwise ? ",c=" : ",ci=") + std::to_string(d[1]) +
                      ",h=" + std::to_string(d[2]) + ",w=" + std::to_string(d[3]);
  if (depthwise) {
    if (k[0] != d[1] || k[1] != 1) return {"", O::kSkipped, "channel multiplier other than 1"};
  } else {
    if (k[1] != d[1]) return {"", O::kSkipped, "grouped convolution"};
    shape += ",co=" + std::to_string(k[0]);
  }
  shape += ",kh=" + std::to_string(k[2]) + ",kw=" + std::to_string(k[3]) + ",stride=" + std::to_string(*stride) +
           ",pad=" + std::to_string(*pad) + ",dilation=" + std::to_string(*dilation);
  return {shape, RecordMapping::Outcome::kMapped, ""};
}

Json ConvArgs(const Workload& w) {
  const bool depthwise = w.op == "depthwise_conv2d";
  const int64_t c = w.Dim(depthwise ? "c" : "ci");
  const auto tensor = [](std::vector<int64_t> shape) { return Json::array({"TENSOR", shape, "float32"}); };
  const int64_t s = w.Dim("stride"), p = w.Dim("pad"), d = w.Dim("dilation");
  return Json::array({tensor({w.Dim("n"), c, w.Dim("h"), w.Dim("w")}),
                      tensor({depthwise ? c : w.Dim("co"), depthwise ? 1 : c, w.Dim("kh"), w.Dim("kw")}),
                      Json::array({s, s}), Json::array({p, p, p, p}), Json::array({d, d}), "float32"});
}

RecordMapping Skip(std::string reason) { return {RecordMapping::Outcome::kSkipped, std::move(reason), {}}; }
RecordMapping Bad(std::string reason) { return {RecordMapping::Outcome::kBad, std::move(reason), {}}; }

std::string ValueText(const KnobValue& v, bool split) {
  std::string text;
  for (const int64_t x : v) text += (text.empty() ? "" : ",") + std::to_string(x);
  return split ? "[" + text + "]" : text;
}

// Why `entity` is no point of `space`. Bad when it contradicts the sketch's knobs (a knob
// unknown, missing or twice, a value of the wrong form); skipped when it is well-formed but
// outside our space: split factors that do not multiply to the extent (TopHub holds a few,
// which AutoTVM itself cannot apply), or a value our sketch does not offer (rocm_v0.05's
// auto_unroll_max_step 128).
RecordMapping WhyNotAPoint(const ConfigSpace& space, const Json& entity, const std::string& sketch) {
  if (!entity.is_array()) return Bad("the config's entity is not a list");
  std::vector<bool> seen(space.num_knobs());
  std::optional<RecordMapping> outside;
  for (const Json& item : entity) {
    if (!item.is_array() || item.size() != 3 || !item[0].is_string())
      return Bad("config entry " + item.dump() + " is not [knob, kind, value]");
    const std::string name = item[0].get<std::string>();
    if (!space.HasKnob(name)) return Bad("unknown knob '" + name + "' for sketch " + sketch);
    const size_t k = space.KnobIndex(name);
    if (seen[k]) return Bad("knob '" + name + "' is given twice");
    seen[k] = true;
    const Knob& knob = space.knob(k);
    const bool split = knob.kind() == KnobKind::kSplit;
    KnobValue value;
    for (const Json& x : item[2].is_array() ? item[2] : Json::array({item[2]})) {
      if (!x.is_number_integer())
        return Bad("knob '" + name + "' has a value that is not an integer: " + item[2].dump());
      value.push_back(x.get<int64_t>());
    }
    if (value.size() != knob.value(0).size())
      return Bad("knob '" + name + "' has " + std::to_string(value.size()) + " values, sketch " + sketch + "'s has " +
                 std::to_string(knob.value(0).size()));
    if (outside) continue;
    if (split) {
      const int64_t extent =
          std::accumulate(knob.value(0).begin(), knob.value(0).end(), int64_t{1}, std::multiplies<>());
      int64_t rest = 1;
      for (size_t i = 1; i < value.size(); ++i) {
        if (value[i] < 1 || value[i] > extent)
          return Bad("knob '" + name + "' has factors that are no split: " + ValueText(value, true));
        rest *= value[i];
        if (rest > extent) break;
      }
      if (value[0] == -1 && rest > 0 && extent % rest == 0) value[0] = extent / rest;  // AutoTVM's inferred factor
      if (value[0] < 1) return Bad("knob '" + name + "' has factors that are no split: " + ValueText(value, true));
      if (knob.Find(value)) continue;
      if (rest > extent || value[0] * rest != extent) {
        outside = Skip("split factors do not multiply to the workload's extents");
        continue;
      }
    }
    if (knob.Find(value)) continue;
    std::string offered;
    if (!split && knob.size() <= 16)
      for (size_t i = 0; i < knob.size(); ++i) offered += (i ? ", " : " (") + ValueText(knob.value(i), false);
    outside = Skip(name + " = " + ValueText(value, split) + " is not a value of " + sketch +
                   (offered.empty() ? "" : offered + ")"));
  }
  for (size_t k = 0; k < seen.size(); ++k)
    if (!seen[k]) return Bad("no value for knob '" + space.knob(k).name() + "' of sketch " + sketch);
  if (outside) return *outside;
  return Bad("the config is not a point of " + sketch + "'s space");
}

MeasureResult ResultOf(const AutoTvmRecord& r, double flops) {
  if (r.error_no != 0) {  // costs are a placeholder then; all_cost is what the failure cost
    MeasureResult failed =
        MeasureResult::Failure(kStatusOfError[r.error_no],
                               "AutoTVM error " + std::to_string(r.error_no) + " (" + kErrorNames[r.error_no] + ")");
    failed.compile_s = r.all_cost;
    return failed;
  }
  const double timed = std::accumulate(r.costs.begin(), r.costs.end(), 0.0);
  return MeasureResult::Success(r.costs, flops, std::max(0.0, r.all_cost - timed));
}

}  // namespace

const ConfigSpace& AutoTvmMapper::SpaceOf(const KernelTemplate& kernel, const Workload& workload) {
  const std::string key = std::string(kernel.name()) + "|" + workload.Key();
  auto it = spaces_.find(key);
  // An imported record is a point of the space whatever the device's limits, so none apply.
  if (it == spaces_.end()) it = spaces_.emplace(key, kernel.Space(workload, kNoDeviceLimits)).first;
  return it->second;
}

RecordMapping AutoTvmMapper::Map(const AutoTvmRecord& record) {
  const Json args = Json::parse(record.args_json);
  const KernelTemplate* kernel = nullptr;
  std::optional<Workload> workload;
  try {
    if (record.task_name.rfind(kNativePrefix, 0) == 0) {
      kernel = FindTemplate(record.task_name.substr(std::string(kNativePrefix).size()));
      if (!kernel) return Skip("no such tensortune sketch here");
      if (!args.is_array() || args.size() != 1 || !args[0].is_string()) return Bad("arguments are not [workload key]");
      workload = ValidatedWorkload(Workload::FromKey(args[0].get<std::string>()));
    } else {
      const AutoTvmTask* task = nullptr;
      for (const auto& t : kTasks)
        if (record.task_name == t.task_name) task = &t;
      if (!task) return Skip("no tensortune sketch with this template's knobs");
      const ShapeOrWhy shape = ConvShapeText(args, std::string(task->op) == "depthwise_conv2d");
      if (shape.why_kind != RecordMapping::Outcome::kMapped) return {shape.why_kind, shape.why, {}};
      kernel = FindTemplate(task->sketch);
      workload = ParseWorkload(task->op, shape.shape);
    }
    if (workload->op != kernel->op())
      return Bad("sketch " + std::string(kernel->name()) + " does not compute " + workload->op);
    if (auto why = kernel->WhyNotApplicable(*workload)) return Skip(*why);
  } catch (const UserError& e) {
    return Bad(e.what());
  }
  const ConfigSpace& space = SpaceOf(*kernel, *workload);
  const auto config = space.FromJson(record.entity_json);
  if (!config) return WhyNotAPoint(space, Json::parse(record.entity_json), std::string(kernel->name()));
  if (record.error_no == 0 && record.costs.empty()) return Bad("a successful measurement without costs");
  RecordMapping m{RecordMapping::Outcome::kMapped, {}, {}};
  m.trial.workload = *workload;
  m.trial.kernel = kernel;
  m.trial.config_key = space.Key(*config);
  m.trial.config_json = space.ToJson(*config);
  m.trial.result = ResultOf(record, kernel->Flops(*workload));
  m.trial.measured_at = UnixToIso8601(record.timestamp);
  return m;
}

DeviceInfo AutoTvmTargetDevice(const std::string& target) {
  DeviceInfo d;
  d.platform = kImportedPlatform;
  d.name = target;
  const std::string kind = target.substr(0, target.find(' '));
  d.type =
      kind == "llvm" ? "cpu"
      : (kind == "cuda" || kind == "opencl" || kind == "rocm" || kind == "vulkan" || kind == "metal" || kind == "nvptx")
          ? "gpu"
          : "other";
  d.imported = true;
  return d;
}

std::string AutoTvmTargetOf(const DeviceInfo& device) {
  return device.platform == kImportedPlatform ? device.name : "opencl -device=" + device.name;
}

AutoTvmRecord ToAutoTvmRecord(const Workload& workload, const KernelTemplate& kernel, const std::string& config_json,
                              const MeasureResult& result, const std::string& target, const std::string& measured_at) {
  AutoTvmRecord r;
  r.target = target;
  for (const auto& t : kTasks)
    if (kernel.name() == t.sketch) r.task_name = t.task_name;
  r.args_json = r.task_name.empty() ? Json::array({workload.Key()}).dump() : ConvArgs(workload).dump();
  if (r.task_name.empty()) r.task_name = kNativePrefix + std::string(kernel.name());
  r.entity_json = config_json;
  r.error_no = ErrorNoOf(result.status);
  r.costs = result.ok() ? result.times_s : std::vector<double>{1e9};
  r.all_cost = result.compile_s + (result.ok() ? std::accumulate(r.costs.begin(), r.costs.end(), 0.0) : 0.0);
  r.timestamp = Iso8601ToUnix(measured_at).value_or(0);
  return r;
}

}  // namespace tt
