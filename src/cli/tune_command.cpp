#include "cli/tune_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/kernel_tune_command.h"
#include "cli/pins.h"
#include "cli/progress.h"
#include "cli/space_check.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "history/sqlite_history_store.h"
#include "history/timestamp.h"
#include "measure/device_measurer.h"
#include "measure/opencl_measurer.h"
#include "ops/conv2d_templates.h"
#include "ops/kernel_template.h"
#include "schedule/interrupt.h"
#include "schedule/run_plan.h"
#include "schedule/task_tuner.h"
#include "schedule/tuner_start.h"
#include "warmstart/cross_device.h"

namespace tt {
namespace {

void CheckOptions(const TuneOptions& o) {
  if (o.sweep_limit != 0) CheckCount("--limit", o.sweep_limit, kMaxTrials);
  o.tuning.Check();  // a sweep plans its trials: its --trials is the default, never out of range
  CheckMeasuringTimes(o.timeout_s, o.min_time_s);
}

struct RunSummary {
  int64_t measured = 0, failed = 0;
  std::map<std::string, int64_t> statuses;
  std::optional<TrialRecord> best;
  std::vector<double> model_fit_seconds;

  void Add(const ConfigSpace& space, const Config& config, const MeasureResult& result, int64_t run_id) {
    ++measured;
    ++statuses[std::string(ToString(result.status))];
    if (!result.ok()) ++failed;
    if (!result.ok() || (best && result.gflops <= best->result.gflops)) return;
    best = TrialRecord{};
    best->config_key = space.Key(config);
    best->config_json = space.ToJson(config);
    best->result = result;
    best->run_id = run_id;
  }
  std::string warm_start;  // --tuner auto: the flow taken and why
  RetimeOutcome retimed;
  std::optional<TaskBest> best_before_retiming;

  // After the leaders were timed again: this run's best as its records now say.
  void Retimed(const TaskTuneReport& report, const SqliteHistoryStore& store, const TaskIds& ids) {
    retimed = report.retimed;
    best_before_retiming = report.best_before_retiming;
    if (retimed.measurements == 0) return;
    best.reset();
    for (const TrialRecord& r : store.Trials(ids))
      if (r.run_id == report.run_id && r.result.ok() && (!best || r.result.gflops > best->result.gflops)) best = r;
  }
};

void PrintSummary(std::ostream& out, const TuneOptions& o, const Workload& w, const KernelTemplate& t,
                  const DeviceInfo& device, int64_t run_id, const RunSummary& s,
                  const std::optional<TrialRecord>& best_ever, bool exhausted, bool interrupted) {
  if (o.json) {
    nlohmann::json j = {{"run_id", run_id},
                        {"db", o.db},
                        {"op", w.op},
                        {"workload", w.Key()},
                        {"template", t.name()},
                        {"device", device.name},
                        {"tuner", o.sweep_limit > 0 ? "sweep" : o.tuning.tuner},
                        {"seed", o.tuning.seed},
                        {"trials", s.measured},
                        {"statuses", s.statuses},
                        {"exhausted", exhausted},
                        {"interrupted", interrupted}};
    auto describe = [](const std::optional<TrialRecord>& r) {
      if (!r) return nlohmann::json(nullptr);
      return nlohmann::json{{"config_key", r->config_key},
                            {"config", nlohmann::json::parse(r->config_json)},
                            {"time_s", r->result.time_s},
                            {"gflops", r->result.gflops},
                            {"run_id", r->run_id}};
    };
    j["model_fit_seconds"] = s.model_fit_seconds;
    if (!s.warm_start.empty()) j["warm_start"] = s.warm_start;
    j["best"] = describe(s.best);
    j["best_in_history"] = describe(best_ever);
    j["retimed"] = {
        {"measurements", s.retimed.measurements},
        {"failed", s.retimed.failed},
        {"best_time_s_before", s.best_before_retiming ? nlohmann::json(s.best_before_retiming->time_s) : nullptr}};
    out << j.dump(2) << "\n";
    return;
  }
  out << fmt::format("run {}: {} trials of {} ({}) on {}", run_id, s.measured, w.Key(), t.name(), device.name);
  for (const auto& [status, count] : s.statuses) out << fmt::format(", {} {}", count, status);
  out << "\n";
  if (!s.model_fit_seconds.empty()) {
    double total = 0;
    for (double t : s.model_fit_seconds) total += t;
    out << fmt::format("cost model trained {} times, {:.1f} ms per training on average\n", s.model_fit_seconds.size(),
                       1e3 * total / static_cast<double>(s.model_fit_seconds.size()));
  }
  if (exhausted) out << "the search space is exhausted: every valid configuration has been measured\n";
  if (interrupted) out << "interrupted: every finished batch is saved in " << o.db << "\n";
  if (s.best) {
    out << fmt::format("best config: {}\n  time {:.4f} ms, {:.2f} GFLOPS (verified against the CPU reference)\n",
                       s.best->config_key, s.best->result.time_s * 1e3, s.best->result.gflops);
  } else {
    out << "no configuration of this run succeeded\n";
  }
  if (s.retimed.measurements > 0 && s.best_before_retiming)
    out << fmt::format(
        "  the leading configs timed again side by side ({} measurements{}); the fastest record was {:.4f} ms "
        "before\n",
        s.retimed.measurements, s.retimed.failed > 0 ? fmt::format(", {} failed and dropped", s.retimed.failed) : "",
        s.best_before_retiming->time_s * 1e3);
  if (best_ever && (!s.best || best_ever->result.gflops > s.best->result.gflops))
    out << fmt::format("best in history (run {}): {} at {:.2f} GFLOPS\n", best_ever->run_id, best_ever->config_key,
                       best_ever->result.gflops);
}

}  // namespace

int RunTune(const TuneOptions& o, std::ostream& out) {
  // Everything the user typed is checked before anything is started or written.
  CheckOptions(o);
  const ProgressMode progress_mode = ResolveProgressMode(ParseProgressMode(o.progress), isatty(STDOUT_FILENO), o.json);
  if (!o.kernel_spec.empty()) {
    KernelTuneOptions kernel_options;
    kernel_options.db = o.db;
    kernel_options.device = o.device;
    kernel_options.timeout_s = o.timeout_s;
    kernel_options.builders = o.builders;
    kernel_options.trials = o.trials_given ? o.tuning.trials : 0;
    kernel_options.tuning = o.tuning;
    return RunKernelTune(o.kernel_spec, kernel_options, o.json, progress_mode, out);
  }
  if (o.op.empty() || o.shape.empty()) throw UserError("--op and --shape are required (or --kernel SPEC.json)");
  const Workload workload = ParseWorkload(o.op, o.shape, o.shape_flags);
  const KernelTemplate& kernel = PickTemplate(workload, o.kernel_template);
  if (o.no_winograd && IsWinogradSketch(kernel))
    throw UserError("--template " + std::string(kernel.name()) + " is a Winograd sketch, which --no-winograd excludes");
  // Through MakeDeviceMeasurer: under tensortune-mpi the configs are measured on other ranks.
  const auto measurer_owner = MakeDeviceMeasurer({.worker_path = DefaultWorkerPath(),
                                                  .device_spec = o.device,
                                                  .timeout_s = o.timeout_s,
                                                  .builders = o.builders,
                                                  .min_time_s = o.min_time_s});
  DeviceMeasurer& measurer = *measurer_owner;
  ConfigSpace space = kernel.Space(workload, measurer.limits());
  ApplyPins(space, o.pins);
  CheckSpaceHasValidConfig(space, o.pins);
  const RunPlan plan = PlanRun(o.tuning, o.sweep_limit, space);
  TaskTuneOptions options = PlannedOptions(o.tuning, plan, o.sweep_limit, measurer.parallelism());
  CheckTunerChoice(options.tuner, space, options.seed, options.tuner_options);
  const TemplateRef kernel_ref = TemplateRefOf(kernel, space);
  TuningTask task(&kernel, workload, std::move(space));
  if (NamesDevices(o.warm_from) && !std::filesystem::exists(o.db))
    throw UserError("--warm-from " + o.warm_from.front() + ": no history database at " + o.db);
  auto store = SqliteHistoryStore::Open(o.db);  // the first thing that writes
  std::optional<CrossDeviceStart> cross;
  if (WantsOtherDevices(o.warm_from, plan, o.sweep_limit)) {
    CrossDeviceOptions cross_options;
    if (NamesDevices(o.warm_from)) cross_options.devices = o.warm_from;
    cross = CrossDeviceWarmStart(*store, workload, kernel_ref, measurer.device(), cross_options);
  }

  const TaskIds ids = store->EnsureTask(workload, kernel.Flops(workload), kernel_ref, measurer.device());
  InterruptGuard guard;
  Progress progress(out, plan.trials, progress_mode);
  RunSummary summary;
  int64_t run_id = 0;
  const auto started = [&](const TaskTuneReport& r) {
    run_id = r.run_id;
    summary.warm_start = r.warm_start;
    if (!o.json && !r.warm_start.empty()) out << r.warm_start << "\n";
  };
  const auto observe = [&](const TuningTask& t, const std::vector<Config>& configs,
                           const std::vector<MeasureResult>& results) {
    for (size_t i = 0; i < results.size(); ++i) summary.Add(t.space(), configs[i], results[i], run_id);
    ProgressState state;
    state.done = summary.measured;
    state.failed = summary.failed;
    state.best_gflops = summary.best ? summary.best->result.gflops : 0.0;
    progress.Update(state);
  };
  options.cross_device = cross ? &*cross : nullptr;
  TaskTuneReport report;
  try {
    report = TuneTask(*store, measurer, task, ids, kernel_ref, options, guard.flag(), observe, started);
  } catch (const std::exception&) {
    progress.Finish();
    throw;
  }
  progress.Finish();
  summary.Retimed(report, *store, ids);
  const LoopEnd& end = report.end;
  const bool exhausted = end.exhausted || (plan.covers_space && end.measured == plan.trials);
  summary.model_fit_seconds = task.ModelFitSeconds();
  PrintSummary(out, o, workload, kernel, measurer.device(), run_id, summary, store->Best(ids), exhausted,
               end.interrupted);
  if (end.interrupted) return kInterruptedExitCode;
  return summary.best || exhausted ? 0 : 1;
}

}  // namespace tt
