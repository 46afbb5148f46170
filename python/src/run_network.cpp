#include "run_network.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "cli/kernel_pack_commands.h"
#include "core/errors.h"
#include "tensortune/history.h"
#include "tensortune/network.h"

namespace py = pybind11;

namespace tt::python {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

template <typename T>
T Get(const py::dict& d, const char* key, T fallback) {
  return d.contains(key) && !d[key].is_none() ? d[key].cast<T>() : fallback;
}

std::vector<tensortune::NetworkLayer> Layers(const py::dict& o) {
  if (o.contains("network") && !o["network"].is_none())
    return NetworkInstances(o["network"].cast<std::string>(), Get<int64_t>(o, "batch", 1));
  const tensortune::Workload w{Get<std::string>(o, "op", ""), Get<std::string>(o, "shape", ""),
                               Get<std::vector<std::string>>(o, "flags", {})};
  return {{w.op, w, {}}};
}

// The caller's arrays of each layer, flattened (an array's shape is checked by its size).
void AddInputs(const py::dict& inputs, std::vector<tensortune::NetworkLayer>& layers) {
  for (const auto& [key, value] : inputs) {
    const auto name = key.cast<std::string>();
    const auto layer = std::find_if(layers.begin(), layers.end(), [&](const auto& l) { return l.name == name; });
    if (layer == layers.end()) throw UserError("inputs: the network has no layer " + name);
    for (const py::handle array : value.cast<py::list>()) {
      std::vector<float>& data = layer->inputs.emplace_back();
      if (array.is_none()) continue;
      const FloatArray a = FloatArray::ensure(array);
      if (!a) throw UserError("inputs of layer " + name + ": not an array of numbers");
      data.assign(a.data(), a.data() + a.size());
    }
  }
}

tensortune::NetworkRunOptions RunOptions(const py::dict& o) {
  tensortune::NetworkRunOptions options;
  options.min_runs = Get<int64_t>(o, "min_runs", options.min_runs);
  options.min_time_s = Get<double>(o, "min_time", options.min_time_s);
  options.seed = Get<uint64_t>(o, "seed", options.seed);
  if (Get<bool>(o, "exact_only", false)) options.prepare.least_trusted = tensortune::Origin::kExact;
  options.keep_outputs = true;
  return options;
}

tensortune::NetworkRun Run(const py::dict& o, const std::vector<tensortune::NetworkLayer>& layers) {
  const auto db = Get<std::string>(o, "db", ""), pack_dir = Get<std::string>(o, "pack", "");
  if (db.empty() == pack_dir.empty()) throw UserError("give either db (a history database) or pack (a kernel pack)");
  const tensortune::NetworkRunOptions options = RunOptions(o);
  tensortune::RuntimeOptions runtime_options;
  runtime_options.binary_cache = Get<std::string>(o, "binary_cache", "");
  const std::string device = Get<std::string>(o, "device", "0");
  py::gil_scoped_release release;
  if (!db.empty()) {
    const auto history = tensortune::OpenHistory(db);
    return tensortune::NetworkRunner(device, runtime_options).Run(layers, *history, options);
  }
  const auto pack = tensortune::KernelPack::Load(pack_dir);
  return tensortune::NetworkRunner(device, runtime_options).Run(layers, pack, options);
}

py::dict LayerDict(const tensortune::LayerRun& l) {
  py::dict d;
  d["name"] = l.name;
  d["workload"] = l.workload;
  d["template"] = l.choice.kernel_template;
  d["config_key"] = l.choice.config_key;
  d["origin"] = std::string(tensortune::ToString(l.choice.origin));
  d["note"] = l.choice.note;
  d["check"] = l.check;
  d["chained"] = l.chained;
  d["time_s"] = l.measured_time_s;
  FloatArray output(std::vector<py::ssize_t>(l.output_dims.begin(), l.output_dims.end()));
  if (static_cast<size_t>(output.size()) == l.output.size())
    std::copy(l.output.begin(), l.output.end(), output.mutable_data());
  d["output"] = output;
  return d;
}

}  // namespace

py::dict RunNetworkArrays(const py::dict& options, const py::dict& inputs) {
  std::vector<tensortune::NetworkLayer> layers = Layers(options);
  AddInputs(inputs, layers);
  tensortune::NetworkRun run;
  try {
    run = Run(options, layers);
  } catch (const tensortune::Error& e) {
    if (e.code() == tensortune::ErrorCode::kOpenCL || e.code() == tensortune::ErrorCode::kBuildFailed)
      throw EnvironmentError(e.what());
    throw UserError(e.what());
  }
  py::dict out;
  out["device"] = run.device.name;
  out["verified"] = run.verified;
  out["runs"] = run.runs;
  out["latency_s"] = run.measured_latency_s;
  out["kernels_s"] = run.kernels_latency_s;
  py::list layer_list;
  for (const auto& l : run.layers) layer_list.append(LayerDict(l));
  out["layers"] = layer_list;
  return out;
}

}  // namespace tt::python
