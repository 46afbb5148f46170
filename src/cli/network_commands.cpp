#include "cli/network_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/option_checks.h"
#include "cli/progress.h"
#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "measure/opencl_measurer.h"
#include "networks/network.h"
#include "ops/kernel_template.h"
#include "schedule/interrupt.h"
#include "schedule/network_tuner.h"
#include "schedule/sketch_selector.h"
#include "schedule/tuner_start.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

constexpr int64_t kMaxBatch = 65'536;  // a network's batch size

std::string Join(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::vector<std::string> SketchNames(const Workload& workload) {
  std::vector<std::string> names;
  for (const KernelTemplate* t : ApplicableTemplates(workload)) names.emplace_back(t->name());
  return names;
}

std::string Ms(std::optional<double> seconds) { return seconds ? fmt::format("{:.3f}", *seconds * 1e3) : "-"; }

nlohmann::json ReportJson(const NetworkRunReport& r, const std::string& device) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : r.tasks) {
    nlohmann::json task = {{"workload", t.task.workload.Key()}, {"op", t.task.workload.op},
                           {"weight", t.task.weight}, {"layers", t.task.layers}, {"flops", t.flops},
                           {"rounds", t.rounds}, {"started_warm", t.started_warm},
                           {"default_time_s", t.default_time_s ? nlohmann::json(*t.default_time_s) : nullptr},
                           {"best", nullptr}};
    if (const auto best = t.Best())
      task["best"] = {{"template", t.sketches[best->first].template_name}, {"config_key", best->second.config_key},
                      {"time_s", best->second.time_s}, {"gflops", best->second.gflops}};
    nlohmann::json sketches = nlohmann::json::array();
    for (const auto& s : t.sketches)
      sketches.push_back({{"template", s.template_name}, {"history", s.history}, {"measured", s.measured}, {"flow", s.flow},
                          {"best_time_s", s.best ? nlohmann::json(s.best->time_s) : nullptr}});
    task["sketches"] = sketches;
    tasks.push_back(task);
  }
  return {{"network_run_id", r.network_run_id}, {"network", r.network}, {"batch", r.batch}, {"device", device},
          {"resumed", r.resumed}, {"trials_used", r.trials_used}, {"trials_budget", r.trials_budget},
          {"latency_s", r.LatencyS()}, {"default_latency_s", r.DefaultLatencyS()},
          {"tasks_at_default", r.TasksAtDefault()}, {"tasks_unknown", r.TasksUnknown()},
          {"warm_tasks", r.WarmTasks()}, {"interrupted", r.interrupted}, {"exhausted", r.exhausted},
          {"tasks", tasks}};
}

std::string LatencyLine(const NetworkRunReport& r) {
  std::string line = fmt::format("latency {:.3f} ms", r.LatencyS() * 1e3);
  if (r.TasksAtDefault() > 0) line += fmt::format(" ({} at their default)", r.TasksAtDefault());
  if (r.TasksUnknown() > 0) line += fmt::format(" ({} not measured yet, left out)", r.TasksUnknown());
  return line;
}

void PrintReport(std::ostream& out, const NetworkRunReport& r) {
  out << fmt::format("\n| # | layers | weight | default ms | best ms | speed-up | sketch | best config |\n"
                     "|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const auto& t = r.tasks[i];
    const auto best = t.Best();
    const std::string speedup = best && t.default_time_s ? fmt::format("{:.1f}x", *t.default_time_s / best->second.time_s) : "-";
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", i, Join(t.task.layers), t.task.weight,
                       Ms(t.default_time_s), Ms(best ? std::optional(best->second.time_s) : std::nullopt), speedup,
                       best ? t.sketches[best->first].template_name : "-", best ? best->second.config_key : "-");
  }
  out << fmt::format("\nnetwork {} (batch {}): estimated {}", r.network, r.batch, LatencyLine(r));
  if (r.DefaultLatencyS() > 0)
    out << fmt::format("; every layer at its untuned default: {:.3f} ms ({:.1f}x slower)", r.DefaultLatencyS() * 1e3,
                       r.DefaultLatencyS() / r.LatencyS());
  out << fmt::format("\n{} of {} trials used (network run {})\n", r.trials_used, r.trials_budget, r.network_run_id);
  if (r.exhausted) out << "every sketch of every task has been searched completely\n";
  if (r.interrupted) out << "interrupted: every finished batch is saved; the same command continues this run\n";
}

}  // namespace

int RunNetworks(std::ostream& out) {
  for (const Network& n : BuiltinNetworks()) {
    int64_t layers = 0;
    for (const auto& l : n.layers) layers += l.repeat;
    out << fmt::format("{:<14} {:>3} layers, {:>2} tasks at batch 1  {}\n", n.name, layers,
                       NetworkTasks(n, 1).size(), n.description);
  }
  out << "\nA network of your own: a JSON file {\"name\": ..., \"layers\": [{\"name\": ..., \"op\": ..., "
         "\"shape\": ..., \"repeat\": N}]}, shapes as `tune --shape` takes them, {batch} for the batch size.\n";
  return 0;
}

int RunTasks(const std::string& name, int64_t batch, bool json, std::ostream& out) {
  const Network network = LoadNetwork(name);
  const auto tasks = NetworkTasks(network, batch);
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : tasks)
      j.push_back({{"workload", t.workload.Key()}, {"op", t.workload.op}, {"weight", t.weight},
                   {"flops", ApplicableTemplates(t.workload).front()->Flops(t.workload)}, {"layers", t.layers},
                   {"sketches", SketchNames(t.workload)}});
    out << j.dump(2) << "\n";
    return 0;
  }
  double total = 0;
  out << fmt::format("{} at batch {}: {} tasks\n\n| # | op | workload | weight | GFLOP | layers | sketches |\n"
                     "|---|---|---|---|---|---|---|\n",
                     network.name, batch, tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& t = tasks[i];
    const double flops = ApplicableTemplates(t.workload).front()->Flops(t.workload);
    total += flops * static_cast<double>(t.weight);
    out << fmt::format("| {} | {} | {} | {} | {:.3f} | {} | {} |\n", i, t.workload.op, t.workload.Key(), t.weight,
                       flops * 1e-9, Join(t.layers), Join(SketchNames(t.workload)));
  }
  out << fmt::format("\n{:.3f} GFLOP per inference (weights included)\n", total * 1e-9);
  return 0;
}

int RunTuneNetwork(const TuneNetworkOptions& o, std::ostream& out) {
  CheckCount("--trials", o.trials, kMaxTrials);
  CheckCount("--batch-size", o.batch_size, kMaxBatchSize);
  CheckCount("--batch", o.batch, kMaxBatch);
  CheckMeasuringTimes(o.timeout_s, o.min_time_s, o.time_limit_s);
  if (!(o.ucb_c >= 0 && o.ucb_c <= 100)) throw UserError("--ucb-c must be a number from 0 to 100");
  const Network network = LoadNetwork(o.network);
  const auto tasks = NetworkTasks(network, o.batch);  // a bad batch is refused before the device is opened
  MakeTaskScheduler(o.scheduler);
  MakeSketchSelector(o.sketch_policy);
  OpenClMeasurer measurer({.worker_path = DefaultWorkerPath(), .device_spec = o.device, .timeout_s = o.timeout_s,
                           .min_time_s = o.min_time_s});
  // Tuners whose defaults scale with the budget are told each task's share of the trials.
  const auto tuner_options =
      WithBudget(o.tuner, o.tuner_options, std::max<int64_t>(o.trials / static_cast<int64_t>(tasks.size()), 1));
  {  // the tuner's name and options, checked on one task's space before anything is written
    const auto kernels = ApplicableTemplates(tasks.front().workload);
    if (kernels.empty()) throw UserError("no kernel template computes " + tasks.front().workload.Key());
    const ConfigSpace probe = kernels.front()->Space(tasks.front().workload, measurer.limits());
    CheckTunerChoice(o.tuner, probe, o.seed, tuner_options);
  }
  auto store = SqliteHistoryStore::Open(o.db);
  NetworkTuneOptions options;
  options.batch = o.batch;
  options.trials = o.trials;
  options.time_limit_s = o.time_limit_s;
  options.batch_size = o.batch_size;
  options.scheduler = o.scheduler;
  options.sketch_policy = o.sketch_policy;
  options.tuner = o.tuner;
  options.tuner_options = tuner_options;
  options.seed = o.seed;
  options.scheduling.ucb_c = o.ucb_c;
  options.retry_failed = o.retry_failed;
  options.command = o.command_line;

  InterruptGuard guard;
  Progress progress(out, o.trials, isatty(STDOUT_FILENO) && !o.json, o.json);
  bool introduced = false;
  const auto report_progress = [&](const NetworkRunReport& r) {
    if (!introduced && !o.json) {
      introduced = true;
      out << fmt::format("{} (batch {}): {} tasks on {}; scheduler {}, sketches {}, tuner {}\n", r.network, r.batch,
                         r.tasks.size(), measurer.device().name, o.scheduler, o.sketch_policy, o.tuner);
      if (r.resumed) out << fmt::format("continuing network run {}\n", r.network_run_id);
      out << fmt::format("{} of {} tasks start from history; a task with no successful trial yet counts at its "
                         "untuned default configuration (measured in the warm-up round)\n",
                         r.WarmTasks(), r.tasks.size());
    }
    std::string line = LatencyLine(r);
    if (r.last_task >= 0) {  // the task just tuned, and its best so far
      const auto& t = r.tasks[static_cast<size_t>(r.last_task)];
      line += fmt::format("  | {}: {} ms", Join(t.task.layers), Ms(t.LatencyS()));
    }
    progress.Update(r.trials_used, line);
  };
  const NetworkRunReport report =
      TuneNetwork(*store, measurer, measurer.device(), measurer.limits(), network, options, guard.flag(),
                  report_progress);
  progress.Finish();
  if (o.json)
    out << ReportJson(report, measurer.device().name).dump(2) << "\n";
  else
    PrintReport(out, report);
  if (report.interrupted) return kInterruptedExitCode;
  return report.TasksUnknown() == static_cast<int>(report.tasks.size()) ? 1 : 0;
}

}  // namespace tt
