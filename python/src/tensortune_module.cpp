// tensortune._tensortune: the compiled half of the Python module (python/tensortune/ is the
// other). Plain values in and out (JSON text, dicts, lists); the tuning runs with the GIL
// released, and Ctrl-C stops it as on the command line, keeping what was measured.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

#include "cli/best_command.h"
#include "cli/export_command.h"
#include "cli/import_command.h"
#include "cli/kernel_tune_command.h"
#include "cli/network_commands.h"
#include "cli/tune_command.h"
#include "core/errors.h"
#include "history/sql_query.h"
#include "measure/opencl_measurer.h"
#include "ops/user_kernel_spec.h"
#include "run_kernel.h"
#include "run_network.h"
#include "schedule/interrupt.h"

namespace py = pybind11;

namespace {

template <typename T>
T Get(const py::dict& d, const char* key, T fallback) {
  return d.contains(key) && !d[key].is_none() ? d[key].cast<T>() : fallback;
}

py::dict TrialDict(const tt::KernelTrial& t) {
  py::dict d;
  d["indices"] = t.value_indices;
  d["config_key"] = t.config_key;
  d["status"] = std::string(tt::ToString(t.result.status));
  d["time_s"] = t.result.time_s;
  d["times_s"] = t.result.times_s;
  d["compile_s"] = t.result.compile_s;
  d["error"] = t.result.error;
  d["run_id"] = t.run_id;
  return d;
}

py::dict TuneKernel(const std::string& spec_json, const std::string& base_dir, const py::dict& o) {
  const tt::UserKernelSpec spec = tt::ParseUserKernelSpec(spec_json, base_dir);
  tt::KernelTuneOptions options;
  options.db = Get<std::string>(o, "db", options.db);
  options.device = Get<std::string>(o, "device", options.device);
  options.worker_path = Get<std::string>(o, "worker", "");
  options.timeout_s = Get<double>(o, "timeout", options.timeout_s);
  options.builders = Get<int>(o, "builders", options.builders);
  options.trials = Get<int64_t>(o, "trials", 0);
  options.tuning.tuner = Get<std::string>(o, "tuner", options.tuning.tuner);
  options.tuning.tuner_options = Get<std::map<std::string, std::string>>(o, "tuner_options", {});
  options.tuning.seed = Get<uint64_t>(o, "seed", options.tuning.seed);
  options.tuning.batch_size = Get<int64_t>(o, "batch_size", options.tuning.batch_size);
  options.tuning.time_limit_s = Get<double>(o, "time_limit", 0);
  options.tuning.command = Get<std::string>(o, "command", "python: tensortune.tune_kernel");
  tt::KernelTuneOutcome r;
  {
    py::gil_scoped_release release;
    tt::InterruptGuard guard;
    r = tt::TuneUserKernel(spec, options, guard.flag());
  }
  py::dict out;
  out["run_id"] = r.run_id;
  py::dict device;
  device["name"] = r.device.name;
  device["platform"] = r.device.platform;
  device["driver_version"] = r.device.driver_version;
  device["type"] = r.device.type;
  device["compute_units"] = r.device.compute_units;
  device["max_work_group_size"] = r.device.max_work_group_size;
  out["device"] = device;
  out["workload"] = r.workload;
  out["template_hash"] = r.template_hash;
  out["measured"] = r.measured;
  out["interrupted"] = r.interrupted;
  out["exhausted"] = r.exhausted;
  out["valid_configs"] = r.valid_configs;
  out["warm_start"] = r.warm_start;
  py::list trials;
  for (const tt::KernelTrial& t : r.trials) trials.append(TrialDict(t));
  out["trials"] = trials;
  return out;
}

py::object ToPython(const tt::SqlValue& v) {
  if (std::holds_alternative<int64_t>(v)) return py::int_(std::get<int64_t>(v));
  if (std::holds_alternative<double>(v)) return py::float_(std::get<double>(v));
  if (std::holds_alternative<std::string>(v)) return py::str(std::get<std::string>(v));
  return py::none();
}

// (columns, rows): rows as tuples, as sqlite3 gives them.
py::tuple Sql(const std::string& db, const std::string& query) {
  tt::SqlResult result;
  {
    py::gil_scoped_release release;
    result = tt::RunSql(db, query, false);
  }
  py::list rows;
  for (const auto& row : result.rows) {
    py::tuple t(row.size());
    for (size_t i = 0; i < row.size(); ++i) t[i] = ToPython(row[i]);
    rows.append(std::move(t));
  }
  return py::make_tuple(result.columns, rows);
}

// What `tune` and `tune-network` share: the database, how to measure, and the search.
template <typename Options>
void ReadMeasuringAndSearch(const py::dict& o, Options& options) {
  options.db = Get<std::string>(o, "db", options.db);
  options.device = Get<std::string>(o, "device", options.device);
  options.timeout_s = Get<double>(o, "timeout", options.timeout_s);
  options.builders = Get<int>(o, "builders", options.builders);
  options.min_time_s = Get<double>(o, "min_time", options.min_time_s);
  options.tuning.tuner = Get<std::string>(o, "tuner", options.tuning.tuner);
  options.tuning.tuner_options = Get<std::map<std::string, std::string>>(o, "tuner_options", {});
  options.tuning.seed = Get<uint64_t>(o, "seed", options.tuning.seed);
  options.tuning.batch_size = Get<int64_t>(o, "batch_size", options.tuning.batch_size);
  options.tuning.time_limit_s = Get<double>(o, "time_limit", 0);
}

// `tensortune tune --op OP --shape SHAPE ... --json`: the summary as JSON text.
std::string TuneOperator(const py::dict& o) {
  tt::TuneOptions options;
  options.op = Get<std::string>(o, "op", "");
  options.shape = Get<std::string>(o, "shape", "");
  options.kernel_template = Get<std::string>(o, "template", "");
  options.no_winograd = Get<bool>(o, "no_winograd", false);
  ReadMeasuringAndSearch(o, options);
  options.tuning.trials = Get<int64_t>(o, "trials", options.tuning.trials);
  options.tuning.command = "python: tensortune.tune";
  options.json = true;
  std::ostringstream out;
  {
    py::gil_scoped_release release;
    tt::RunTune(options, out);
  }
  return out.str();
}

// `tensortune tune-network NETWORK ... --json`: the summary as JSON text.
std::string TuneNetwork(const py::dict& o) {
  tt::TuneNetworkOptions options;
  options.network = Get<std::string>(o, "network", "");
  options.input_shapes = Get<std::vector<std::string>>(o, "input_shapes", {});
  ReadMeasuringAndSearch(o, options);
  options.tuning.trials = Get<int64_t>(o, "trials", 0);
  if (o.contains("batch") && !o["batch"].is_none()) {
    options.tuning.batch = o["batch"].cast<int64_t>();
    options.batch_given = true;
  }
  options.tuning.scheduler = Get<std::string>(o, "scheduler", options.tuning.scheduler);
  options.tuning.no_winograd = Get<bool>(o, "no_winograd", false);
  options.tuning.command = "python: tensortune.tune_network " + options.network;
  options.json = true;
  std::ostringstream out;
  {
    py::gil_scoped_release release;
    tt::RunTuneNetwork(options, out);
  }
  return out.str();
}

// `tensortune best`: the JSON text, or None with the reason when the history has nothing usable.
py::tuple Best(const py::dict& o) {
  tt::BestOptions options;
  options.op = Get<std::string>(o, "op", "");
  options.shape = Get<std::string>(o, "shape", "");
  options.kernel_template = Get<std::string>(o, "template", "");
  options.db = Get<std::string>(o, "db", "history.db");
  options.device = Get<std::string>(o, "device", "");
  std::ostringstream out, err;
  const int code = tt::RunBest(options, out, err);
  if (code != 0) return py::make_tuple(py::none(), err.str());
  return py::make_tuple(out.str(), "");
}

// `tensortune export`: (exit code, what it wrote to stdout, its messages).
py::tuple Export(const py::dict& o) {
  tt::ExportOptions options;
  options.db = Get<std::string>(o, "db", "history.db");
  options.format = Get<std::string>(o, "format", options.format);
  options.op = Get<std::string>(o, "op", "");
  options.workload = Get<std::string>(o, "workload", "");
  options.run = Get<int64_t>(o, "run", 0);
  options.device = Get<std::string>(o, "device", "");
  options.out = Get<std::string>(o, "out", "");
  std::ostringstream out, err;
  int code = 0;
  {
    py::gil_scoped_release release;
    code = tt::RunExport(options, out, err);
  }
  return py::make_tuple(code, out.str(), err.str());
}

// `tensortune import`: (exit code, its report, its messages).
py::tuple Import(const std::vector<std::string>& files, const std::string& db, bool skip_bad,
                 const std::string& device_name) {
  tt::ImportOptions options{files, db, skip_bad, device_name};
  std::ostringstream out, err;
  int code = 0;
  {
    py::gil_scoped_release release;
    code = tt::RunImport(options, out, err);
  }
  return py::make_tuple(code, out.str(), err.str());
}

// Kernel Tuner's run_kernel: per argument, the array's bytes afterwards, or None for a scalar.
py::list RunKernel(const std::string& spec_json, const std::string& base_dir, const std::string& device) {
  std::vector<std::optional<std::vector<unsigned char>>> outputs;
  {
    py::gil_scoped_release release;
    outputs = tt::python::RunKernelOnce(spec_json, base_dir, device);
  }
  py::list out;
  for (const auto& o : outputs) {
    if (o) {
      out.append(py::bytes(reinterpret_cast<const char*>(o->data()), o->size()));
    } else {
      out.append(py::none());
    }
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_tensortune, m) {
  m.doc() = "tensortune's engine (use the tensortune package, not this module)";
  static py::exception<tt::UserError> user_error(m, "UserError", PyExc_ValueError);
  static py::exception<tt::EnvironmentError> environment_error(m, "EnvironmentError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tt::UserError& e) {
      user_error(e.what());
    } catch (const tt::EnvironmentError& e) {
      environment_error(e.what());
    }
  });
  m.def("tune_kernel", &TuneKernel, py::arg("spec_json"), py::arg("base_dir"), py::arg("options"),
        "Tunes a user's kernel described by a spec (JSON text); returns the run and every trial of the task.");
  m.def("sql", &Sql, py::arg("db"), py::arg("query"), "Runs one read-only SQL statement: (columns, rows).");
  m.def("tune_operator", &TuneOperator, py::arg("options"),
        "Tunes one operator workload like `tensortune tune --json`; returns the JSON summary.");
  m.def("tune_network", &TuneNetwork, py::arg("options"),
        "Tunes a network like `tensortune tune-network --json`; returns the JSON summary.");
  m.def("best", &Best, py::arg("options"), "The best recorded config like `tensortune best`: (json or None, why).");
  m.def("export_history", &Export, py::arg("options"), "`tensortune export`: (code, output, messages).");
  m.def("import_history", &Import, py::arg("files"), py::arg("db"), py::arg("skip_bad"), py::arg("device_name"),
        "`tensortune import`: (code, report, messages).");
  m.def("run_kernel", &RunKernel, py::arg("spec_json"), py::arg("base_dir"), py::arg("device"),
        "Runs one config of a kernel once in this process: per argument its bytes afterwards, or None.");
  m.def("run_network", &tt::python::RunNetworkArrays, py::arg("options"), py::arg("inputs"),
        "Runs a tuned network (or one operator) on arrays through the runtime: outputs, checks and times per layer.");
  m.def("default_builders", &tt::DefaultBuilders);
}
