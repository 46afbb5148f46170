#include "cli/tune_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/progress.h"
#include "cli/tuning_loop.h"
#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "history/timestamp.h"
#include "measure/opencl_measurer.h"
#include "ops/kernel_template.h"
#include "space/knob_schema.h"
#include "tuners/tuner_factory.h"
#include "warmstart/flow.h"

namespace tt {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

// Ctrl-C or SIGTERM ends the run after the batch in flight; every finished batch is kept.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool interrupted() const { return g_interrupted != 0; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

void CheckOptions(const TuneOptions& o) {
  if (o.sweep_limit < 0) throw UserError("--limit must be at least 1");
  if (o.trials < 1) throw UserError("--trials must be at least 1");
  if (o.batch_size < 1) throw UserError("--batch-size must be at least 1");
  if (o.timeout_s <= 0) throw UserError("--timeout must be positive");
  if (o.min_time_s < 0) throw UserError("--min-time must not be negative");
}

// What a run measures: the tuner and trials asked for, or for a sweep every valid config when
// there are at most `sweep_limit` of them (grid order), else a random sample of that many.
struct RunPlan {
  std::string tuner;
  int64_t trials = 0;
  bool covers_space = false;  // the trials are every valid config
};

// Spaces larger than this are not counted: a sweep of them is always a sample.
constexpr uint64_t kCountableSpace = uint64_t{1} << 24;

RunPlan PlanRun(const TuneOptions& o, const ConfigSpace& space) {
  if (o.sweep_limit <= 0) return {o.tuner, o.trials};
  if (space.Size() <= kCountableSpace) {
    int64_t valid = 0;
    for (uint64_t i = 0; i < space.Size() && valid <= o.sweep_limit; ++i) valid += space.IsValid(space.FromIndex(i));
    if (valid <= o.sweep_limit) return {"grid", std::max<int64_t>(valid, 1), true};
  }
  return {"random", o.sweep_limit};
}

// The tuner of a run, seeded with this task's history; `--tuner auto` picks it by the history
// flows of warmstart/, and `explanation` says why.
std::unique_ptr<Tuner> StartTuner(std::unique_ptr<Tuner> tuner, const SqliteHistoryStore& store, const FlowTask& task,
                                  const TuneOptions& o, std::string& name, std::string& explanation) {
  if (tuner) {
    tuner->Seed(TaskHistory(store, task.ids, *task.space));
    return tuner;
  }
  FlowChoice choice = ChooseFlow(store, task, o.seed, FlowOptions::Parse(o.tuner_options));
  name = "auto-" + choice.tuner;
  explanation = choice.explanation;
  return std::move(choice.made);
}

struct RunSummary {
  int64_t measured = 0, failed = 0;
  std::map<std::string, int64_t> statuses;
  std::optional<TrialRecord> best;
  std::vector<double> model_fit_seconds;
  std::string warm_start;  // --tuner auto: the flow taken and why
};

void PrintSummary(std::ostream& out, const TuneOptions& o, const Workload& w, const KernelTemplate& t,
                  const DeviceInfo& device, int64_t run_id, const RunSummary& s,
                  const std::optional<TrialRecord>& best_ever, bool exhausted, bool interrupted) {
  if (o.json) {
    nlohmann::json j = {{"run_id", run_id}, {"db", o.db}, {"op", w.op}, {"workload", w.Key()},
                        {"template", t.name()}, {"device", device.name}, {"tuner", o.sweep_limit > 0 ? "sweep" : o.tuner},
                        {"seed", o.seed}, {"trials", s.measured}, {"statuses", s.statuses},
                        {"exhausted", exhausted}, {"interrupted", interrupted}};
    auto describe = [](const std::optional<TrialRecord>& r) {
      if (!r) return nlohmann::json(nullptr);
      return nlohmann::json{{"config_key", r->config_key}, {"config", nlohmann::json::parse(r->config_json)},
                            {"time_s", r->result.time_s}, {"gflops", r->result.gflops}, {"run_id", r->run_id}};
    };
    j["model_fit_seconds"] = s.model_fit_seconds;
    if (!s.warm_start.empty()) j["warm_start"] = s.warm_start;
    j["best"] = describe(s.best);
    j["best_in_history"] = describe(best_ever);
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
  if (best_ever && (!s.best || best_ever->result.gflops > s.best->result.gflops))
    out << fmt::format("best in history (run {}): {} at {:.2f} GFLOPS\n", best_ever->run_id, best_ever->config_key,
                       best_ever->result.gflops);
}

}  // namespace

int RunTune(const TuneOptions& o, std::ostream& out) {
  // Everything the user typed is checked before anything is started or written.
  CheckOptions(o);
  const Workload workload = ParseWorkload(o.op, o.shape, o.shape_flags);
  const KernelTemplate& kernel = PickTemplate(workload, o.kernel_template);
  OpenClMeasurer measurer({.worker_path = DefaultWorkerPath(), .device_spec = o.device, .timeout_s = o.timeout_s,
                           .min_time_s = o.min_time_s});
  ConfigSpace space = kernel.Space(workload, measurer.limits());
  ApplyPins(space, o.pins);
  const RunPlan plan = PlanRun(o, space);
  const bool auto_flow = plan.tuner == "auto";
  if (auto_flow) FlowOptions::Parse(o.tuner_options);  // checked before anything is written
  auto tuner = auto_flow ? nullptr : MakeTuner(plan.tuner, space, o.seed, o.tuner_options);
  auto store = SqliteHistoryStore::Open(o.db);  // the first thing that writes

  const TemplateRef kernel_ref{std::string(kernel.name()), std::string(kernel.op()), kernel.SourceHash(), KnobSchema(space)};
  const TaskIds ids = store->EnsureTask(workload, kernel.Flops(workload), kernel_ref, measurer.device());
  std::string tuner_name = plan.tuner, flow_explanation;
  tuner = StartTuner(std::move(tuner), *store, {workload, kernel_ref, ids, &space}, o, tuner_name, flow_explanation);
  if (!o.json && !flow_explanation.empty()) out << flow_explanation << "\n";

  nlohmann::json options_json = o.tuner_options;
  const int64_t run_id =
      store->BeginRun(ids, {o.sweep_limit > 0 ? "sweep-" + plan.tuner : tuner_name, options_json.dump(), o.seed,
                            o.command_line, plan.trials});
  InterruptGuard guard;
  Progress progress(out, plan.trials, isatty(STDOUT_FILENO) && !o.json, o.json);
  RunSummary summary;
  summary.warm_start = flow_explanation;
  int batch_number = 0;
  std::string batch_started = UtcNowIso8601();
  const auto record = [&](const std::vector<Config>& batch, const std::vector<MeasureResult>& results) {
    if (guard.interrupted()) return false;  // the batch in flight may have been cut short: not recorded
    const std::string finished = UtcNowIso8601();
    std::vector<TrialRecord> records;
    for (size_t i = 0; i < batch.size(); ++i) {
      records.push_back({space.Key(batch[i]), space.ToJson(batch[i]), results[i], run_id, batch_number,
                         batch_started, finished});
      ++summary.statuses[std::string(ToString(results[i].status))];
      if (!results[i].ok()) ++summary.failed;
      if (results[i].ok() && (!summary.best || results[i].gflops > summary.best->result.gflops))
        summary.best = records.back();
    }
    store->RecordBatch(run_id, ids, records);
    summary.measured += static_cast<int64_t>(batch.size());
    progress.Update(summary.measured, summary.failed, summary.best ? summary.best->result.gflops : 0);
    ++batch_number;
    batch_started = finished;
    return !guard.interrupted();
  };
  const LoopEnd end = RunTuningLoop(*tuner, measurer, {&kernel, workload, &space}, plan.trials, o.batch_size, record);
  const bool exhausted = end.exhausted || (plan.covers_space && end.measured == plan.trials);
  progress.Finish();
  store->EndRun(run_id, guard.interrupted() ? "interrupted" : "finished");
  summary.model_fit_seconds = tuner->ModelFitSeconds();
  PrintSummary(out, o, workload, kernel, measurer.device(), run_id, summary, store->Best(ids), exhausted,
               guard.interrupted());
  return summary.best || exhausted ? 0 : 1;
}

}  // namespace tt
