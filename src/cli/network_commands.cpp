#include "cli/network_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/progress.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "history/sqlite_history_store.h"
#include "measure/device_measurer.h"
#include "measure/opencl_measurer.h"
#include "networks/network.h"
#include "ops/kernel_template.h"
#include "schedule/interrupt.h"
#include "schedule/network_tuner.h"
#include "schedule/tuner_start.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

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

// The estimated network latency after each round, as recorded (network_progress).
nlohmann::json AnytimeJson(const std::vector<std::pair<int64_t, double>>& progress) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [trials, latency_s] : progress) curve.push_back({{"trials", trials}, {"latency_s", latency_s}});
  return curve;
}

nlohmann::json ReportJson(const NetworkRunReport& r, const std::string& device) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : r.tasks) {
    nlohmann::json task = {{"workload", t.task.workload.Key()},
                           {"op", t.task.workload.op},
                           {"weight", t.task.weight},
                           {"layers", t.task.layers},
                           {"flops", t.flops},
                           {"rounds", t.rounds},
                           {"started_warm", t.started_warm},
                           {"default_time_s", t.default_time_s ? nlohmann::json(*t.default_time_s) : nullptr},
                           {"unmeasured", t.Unmeasured()},
                           {"first", nullptr},
                           {"best", nullptr}};
    if (t.first)
      task["first"] = {
          {"template", t.first->template_name}, {"config_key", t.first->config_key}, {"source", t.first->source}};
    if (const auto best = t.Best())
      task["best"] = {{"template", t.sketches[best->first].template_name},
                      {"config_key", best->second.config_key},
                      {"time_s", best->second.time_s},
                      {"gflops", best->second.gflops}};
    nlohmann::json sketches = nlohmann::json::array();
    for (const auto& s : t.sketches)
      sketches.push_back({{"template", s.template_name},
                          {"history", s.history},
                          {"measured", s.measured},
                          {"flow", s.flow},
                          {"best_time_s", s.best ? nlohmann::json(s.best->time_s) : nullptr},
                          {"prior", s.prior},
                          {"prior_note", s.prior_note}});
    task["sketches"] = sketches;
    task["sketch_choice"] = t.sketch_choice;
    tasks.push_back(task);
  }
  return {{"network_run_id", r.network_run_id},
          {"network", r.network},
          {"batch", r.batch},
          {"device", device},
          {"resumed", r.resumed},
          {"trials_used", r.trials_used},
          {"trials_budget", r.trials_budget},
          {"latency_s", r.LatencyS()},
          {"default_latency_s", r.DefaultLatencyS()},
          {"tasks_at_default", r.TasksAtDefault()},
          {"tasks_unknown", r.TasksUnknown()},
          {"tasks_unmeasured", r.TasksUnmeasured()},
          {"warm_tasks", r.WarmTasks()},
          {"retimed",
           {{"measurements", r.retimed.measurements},
            {"tasks", r.retimed.tasks},
            {"failed", r.retimed.failed},
            {"latency_before_s", r.retimed.latency_before_s}}},
          {"interrupted", r.interrupted},
          {"exhausted", r.exhausted},
          {"tasks", tasks}};
}

std::string LatencyLine(const NetworkRunReport& r) {
  std::string line = fmt::format("latency {:.3f} ms", r.LatencyS() * 1e3);
  if (r.TasksAtDefault() > 0) line += fmt::format(" ({} at their default)", r.TasksAtDefault());
  if (r.TasksUnmeasured() > 0)
    line += fmt::format(" ({} unmeasured: running transferred configs, left out)", r.TasksUnmeasured());
  if (r.TasksUnknown() > r.TasksUnmeasured())
    line += fmt::format(" ({} not measured yet, left out)", r.TasksUnknown() - r.TasksUnmeasured());
  return line;
}

void PrintReport(std::ostream& out, const NetworkRunReport& r) {
  out << fmt::format(
      "\n| # | layers | weight | default ms | best ms | speed-up | sketch | best config |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    const auto& t = r.tasks[i];
    const auto best = t.Best();
    const std::string speedup =
        best && t.default_time_s ? fmt::format("{:.1f}x", *t.default_time_s / best->second.time_s) : "-";
    const bool unmeasured = t.Unmeasured();  // runs its first config, transferred and never measured
    out << fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", i, Join(t.task.layers), t.task.weight, Ms(t.default_time_s),
        unmeasured ? "unmeasured" : Ms(best ? std::optional(best->second.time_s) : std::nullopt), speedup,
        best         ? t.sketches[best->first].template_name
        : unmeasured ? t.first->template_name
                     : "-",
        best         ? best->second.config_key
        : unmeasured ? t.first->config_key
                     : "-");
  }
  out << "\nWhich sketch each task settled on, and why:\n";
  for (size_t i = 0; i < r.tasks.size(); ++i) {
    out << fmt::format("  {}. {}\n", i, r.tasks[i].sketch_choice);
    if (const auto& first = r.tasks[i].first)
      out << fmt::format("     first round: {}{}\n", first->source,
                         r.tasks[i].Unmeasured() ? " (unmeasured: the budget ran out first)" : "");
    if (const auto best = r.tasks[i].Best(); best && !r.tasks[i].sketches[best->first].flow.empty())
      out << fmt::format("     its tuner: {}\n", r.tasks[i].sketches[best->first].flow);
  }
  out << fmt::format("\nnetwork {} (batch {}): estimated {}", r.network, r.batch, LatencyLine(r));
  if (r.DefaultLatencyS() > 0)
    out << fmt::format("; every layer at its untuned default: {:.3f} ms ({:.1f}x slower)", r.DefaultLatencyS() * 1e3,
                       r.DefaultLatencyS() / r.LatencyS());
  if (r.retimed.measurements > 0)
    out << fmt::format(
        "\nthe leading configs of the {} heaviest tasks timed again side by side ({} measurements{}): "
        "estimated {:.3f} ms before",
        r.retimed.tasks, r.retimed.measurements,
        r.retimed.failed > 0 ? fmt::format(", {} failed and dropped", r.retimed.failed) : "",
        r.retimed.latency_before_s * 1e3);
  out << fmt::format("\n{} of {} trials used (network run {})\n", r.trials_used, r.trials_budget, r.network_run_id);
  if (r.exhausted) out << "every sketch of every task has been searched completely\n";
  if (r.interrupted) out << "interrupted: every finished batch is saved; the same command continues this run\n";
}

}  // namespace

CommandNetwork LoadCommandNetwork(const std::string& name, int64_t batch, bool batch_given,
                                  const std::vector<std::string>& input_shapes) {
  NetworkLoadOptions options;
  if (batch_given) options.batch = batch;
  for (const auto& item : input_shapes) {
    auto [input, dims] = ParseInputShape(item);
    if (!options.input_shapes.emplace(input, std::move(dims)).second)
      throw UserError("--input-shape gives input '" + input + "' twice");
  }
  CommandNetwork loaded{LoadNetwork(name, options), batch};
  if (loaded.network.batch) loaded.batch = *loaded.network.batch;
  return loaded;
}

int RunNetworks(std::ostream& out) {
  for (const Network& n : BuiltinNetworks()) {
    int64_t layers = 0;
    for (const auto& l : n.layers) layers += l.repeat;
    out << fmt::format("{:<14} {:>3} layers, {:>2} tasks at batch 1  {}\n", n.name, layers, NetworkTasks(n, 1).size(),
                       n.description);
  }
  out << "\nA network of your own: a JSON file {\"name\": ..., \"layers\": [{\"name\": ..., \"op\": ..., "
         "\"shape\": ..., \"repeat\": N}]}, shapes as `tune --shape` takes them, {batch} for the batch size.\n"
         "An ONNX model: `tensortune tasks model.onnx [--batch N] [--input-shape name=1,3,224,224]`, the same for "
         "tune-network. Conv (groups 1 or one per channel), Gemm and MatMul become tasks, shapes from ONNX shape "
         "inference; every other node is listed as not tuned with its share of the FLOPs (docs/onnx.md).\n";
  return 0;
}

namespace {

// Not-tuned nodes of one operator and reason.
struct UntunedGroup {
  std::string op, why;
  std::vector<std::string> names;
  double flops = 0;
  int unknown = 0;  // nodes whose FLOPs are unknown
};

std::vector<UntunedGroup> GroupUntuned(const Network& network) {
  std::vector<UntunedGroup> groups;
  for (const auto& u : network.untuned) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.op == u.op && g.why == u.why; });
    if (g == groups.end()) g = groups.insert(groups.end(), UntunedGroup{u.op, u.why, {}, 0, 0});
    g->names.push_back(u.name);
    if (u.flops)
      g->flops += *u.flops;
    else
      ++g->unknown;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.flops > b.flops; });
  return groups;
}

// The FLOPs of the tuned tasks (weights included) and of the nodes not tuned (known ones).
struct ModelFlops {
  double tuned = 0, untuned = 0;
  int unknown = 0;
  double total() const { return tuned + untuned; }
  std::optional<double> Share(double flops) const {
    return total() > 0 ? std::optional(flops / total()) : std::nullopt;
  }
};

ModelFlops CountFlops(const Network& network, const std::vector<NetworkTask>& tasks) {
  ModelFlops f;
  for (const auto& t : tasks) f.tuned += WorkloadFlops(t.workload) * static_cast<double>(t.weight);
  for (const auto& u : network.untuned) {
    if (u.flops)
      f.untuned += *u.flops;
    else
      ++f.unknown;
  }
  return f;
}

// GFLOP with three decimals, or three significant digits below 0.001 (a small model's layers).
std::string Gflop(double flops) {
  const double g = flops * 1e-9;
  return g > 0 && g < 0.001 ? fmt::format("{:.3g}", g) : fmt::format("{:.3f}", g);
}

std::string Percent(std::optional<double> share) {
  if (!share) return "?";
  if (*share == 0) return "0%";
  if (*share < 0.001) return "<0.1%";
  return fmt::format("{:.1f}%", *share * 100);
}

std::string FirstNames(const std::vector<std::string>& names, size_t shown = 4) {
  if (names.size() <= shown) return Join(names);
  return Join(std::vector<std::string>(names.begin(), names.begin() + static_cast<ptrdiff_t>(shown))) +
         fmt::format(", ... ({} in all)", names.size());
}

nlohmann::json UntunedJson(const Network& network, const ModelFlops& flops) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : GroupUntuned(network)) {
    const bool known = g.unknown < static_cast<int>(g.names.size());
    groups.push_back({{"tuned", false},
                      {"op", g.op},
                      {"why", g.why},
                      {"layers", g.names},
                      {"weight", g.names.size()},
                      {"flops", known ? nlohmann::json(g.flops) : nullptr},
                      {"flops_unknown", g.unknown},
                      {"share", known && flops.Share(g.flops) ? nlohmann::json(*flops.Share(g.flops)) : nullptr}});
  }
  return groups;
}

// "not tuned: 49 nodes, 1.2% of the model's 3.661 GFLOP" (empty when every node is tuned).
std::string UntunedLine(const Network& network, const ModelFlops& flops) {
  if (network.untuned.empty()) return {};
  std::string line =
      fmt::format("not tuned: {} node{}, {} of the model's {} GFLOP (estimates)", network.untuned.size(),
                  network.untuned.size() == 1 ? "" : "s", Percent(flops.Share(flops.untuned)), Gflop(flops.total()));
  if (flops.unknown > 0)
    line += fmt::format("; {} node{} of unknown FLOPs not counted", flops.unknown, flops.unknown == 1 ? "" : "s");
  return line;
}

}  // namespace

int RunTasks(const TasksOptions& o, std::ostream& out) {
  const CommandNetwork loaded = LoadCommandNetwork(o.network, o.batch, o.batch_given, o.input_shapes);
  const Network& network = loaded.network;
  const int64_t batch = loaded.batch;
  const auto tasks = NetworkTasks(network, batch);
  const ModelFlops model = CountFlops(network, tasks);
  if (o.json) {
    // An array of the tasks, then (imported models) one entry per kind of node not tuned,
    // marked "tuned": false.
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : tasks) {
      const double flops = WorkloadFlops(t.workload);
      const auto share = model.Share(flops * static_cast<double>(t.weight));
      j.push_back({{"tuned", true},
                   {"workload", t.workload.Key()},
                   {"op", t.workload.op},
                   {"weight", t.weight},
                   {"flops", flops},
                   {"layers", t.layers},
                   {"sketches", SketchNames(t.workload)},
                   {"share", share ? nlohmann::json(*share) : nullptr}});
    }
    for (auto& g : UntunedJson(network, model)) j.push_back(std::move(g));
    out << j.dump(2) << "\n";
    return 0;
  }
  out << fmt::format(
      "{} at batch {}: {} tasks\n\n| # | op | workload | weight | GFLOP | layers | sketches |\n"
      "|---|---|---|---|---|---|---|\n",
      network.name, batch, tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& t = tasks[i];
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", i, t.workload.op, t.workload.Key(), t.weight,
                       Gflop(WorkloadFlops(t.workload)), FirstNames(t.layers, 8), Join(SketchNames(t.workload)));
  }
  out << fmt::format("\n{} GFLOP per inference (weights included)", Gflop(model.tuned));
  if (network.untuned.empty()) {
    out << "\n";
    return 0;
  }
  out << fmt::format(
      ", {} of the model's FLOPs\n\n{}\n\n| op | nodes | GFLOP | share | why | layers |\n"
      "|---|---|---|---|---|---|\n",
      Percent(model.Share(model.tuned)), UntunedLine(network, model));
  for (const auto& g : GroupUntuned(network)) {
    const bool known = g.unknown < static_cast<int>(g.names.size());
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", g.op, g.names.size(), known ? Gflop(g.flops) : "?",
                       known ? Percent(model.Share(g.flops)) : "?", g.why, FirstNames(g.names));
  }
  return 0;
}

int RunTuneNetwork(const TuneNetworkOptions& o, std::ostream& out) {
  NetworkTuneOptions options = o.tuning;
  options.Check();
  CheckMeasuringTimes(o.timeout_s, o.min_time_s);
  const ProgressMode progress_mode = ResolveProgressMode(ParseProgressMode(o.progress), isatty(STDOUT_FILENO), o.json);
  const CommandNetwork loaded = LoadCommandNetwork(o.network, options.batch, o.batch_given, o.input_shapes);
  const Network& network = loaded.network;
  options.batch = loaded.batch;  // an ONNX model's own when --batch is not given
  CheckCount("--batch", options.batch, kMaxNetworkBatch);
  const auto tasks = NetworkTasks(network, options.batch);  // a bad batch is refused before the device is opened
  if (tasks.empty())
    throw UserError("network " + network.name + " has no layer that tensortune tunes (" +
                    std::to_string(network.untuned.size()) + " nodes not tuned: `tensortune tasks " + o.network +
                    "` lists them)");
  const ModelFlops model = CountFlops(network, tasks);
  // Through MakeDeviceMeasurer: under tensortune-mpi the configs are measured on other ranks,
  // a batch of --batch-size configs for each.
  const auto measurer_owner = MakeDeviceMeasurer({.worker_path = DefaultWorkerPath(),
                                                  .device_spec = o.device,
                                                  .timeout_s = o.timeout_s,
                                                  .builders = o.builders,
                                                  .min_time_s = o.min_time_s});
  DeviceMeasurer& measurer = *measurer_owner;
  options.batch_size *= measurer.parallelism();
  // Tuners whose defaults scale with the budget are told each task's share of the trials.
  options.tuner_options = WithBudget(options.tuner, options.tuner_options,
                                     std::max<int64_t>(options.trials / static_cast<int64_t>(tasks.size()), 1));
  {  // the tuner's name and options, checked on one task's space before anything is written
    const auto kernels = ApplicableTemplates(tasks.front().workload);
    if (kernels.empty()) throw UserError("no kernel template computes " + tasks.front().workload.Key());
    const ConfigSpace probe = kernels.front()->Space(tasks.front().workload, measurer.limits());
    CheckTunerChoice(options.tuner, probe, options.seed, options.tuner_options);
  }
  auto store = SqliteHistoryStore::Open(o.db);

  InterruptGuard guard;
  Progress progress(out, options.trials, progress_mode);
  bool introduced = false;
  const auto report_progress = [&](const NetworkRunReport& r) {
    if (!introduced && !o.json) {
      introduced = true;
      out << fmt::format("{} (batch {}): {} tasks on {}; scheduler {}, sketches {}, tuner {}\n", r.network, r.batch,
                         r.tasks.size(), measurer.device().name, options.scheduler, options.sketch_policy,
                         options.tuner);
      if (r.resumed) out << fmt::format("continuing network run {}\n", r.network_run_id);
      if (!network.untuned.empty())
        out << UntunedLine(network, model) << " (`tensortune tasks " << o.network << "` lists them)\n";
      out << fmt::format(
          "{} of {} tasks have trials of their own in the history; the first round measures every other task's "
          "best guess (the most similar measured workload's config{}, else its sketch's starting config for this "
          "device), heaviest tasks first; each sketch's tuner then starts at its first round from those{}{}\n",
          r.WarmTasks(), r.tasks.size(),
          options.warm_from_devices ? " and the fastest of its records on the most similar other device" : "",
          options.warm_from_devices ? ", from its records on other devices" : "",
          options.warm_similar ? " and from similar workloads' records on this device (this run's included)" : "");
    }
    std::string line = LatencyLine(r);
    if (r.last_task >= 0) {  // the task just tuned, and its best so far
      const auto& t = r.tasks[static_cast<size_t>(r.last_task)];
      line += fmt::format("  | {}: {} ms", Join(t.task.layers), Ms(t.LatencyS()));
    }
    ProgressState state;
    state.done = r.trials_used;
    state.detail = line;
    if (r.TasksUnknown() == 0) state.latency_s = r.LatencyS();
    progress.Update(state);
  };
  const NetworkRunReport report = TuneNetwork(*store, measurer, measurer.device(), measurer.limits(), network, options,
                                              guard.flag(), report_progress);
  progress.Finish();
  const auto runs = store->NetworkRuns(report.network_run_id);
  const auto curve = runs.empty() ? std::vector<std::pair<int64_t, double>>{} : runs.front().progress;
  const double search_end_s = report.SearchEndLatencyS();
  const std::optional<int64_t> enough = TrialsToWithinOnePercent(curve, search_end_s);
  if (o.json) {
    nlohmann::json j = ReportJson(report, measurer.device().name);
    j["anytime"] = AnytimeJson(curve);
    j["within_1pct_after_trials"] = enough ? nlohmann::json(*enough) : nullptr;
    if (!network.untuned.empty()) {
      j["not_tuned"] = UntunedJson(network, model);
      j["tuned_share"] = model.Share(model.tuned) ? nlohmann::json(*model.Share(model.tuned)) : nullptr;
    }
    out << j.dump(2) << "\n";
  } else {
    PrintReport(out, report);
    if (enough && curve.size() > 1)
      out << (*enough < curve.back().first
                  ? fmt::format("the search's estimate came within 1% of where it ended ({:.3f} ms) after {} of "
                                "its {} trials\n",
                                search_end_s * 1e3, *enough, curve.back().first)
                  : "the search's estimate was still falling in its last round: more trials may pay\n");
    if (!network.untuned.empty())
      out << "the estimate leaves out the nodes not tuned; " << UntunedLine(network, model) << "\n";
  }
  if (report.interrupted) return kInterruptedExitCode;
  return report.TasksUnknown() == static_cast<int>(report.tasks.size()) ? 1 : 0;
}

}  // namespace tt
