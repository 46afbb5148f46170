#include "cli/kernel_tune_command.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/progress.h"
#include "cli/space_check.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "history/sqlite_history_store.h"
#include "measure/device_measurer.h"
#include "ops/user_kernel_template.h"
#include "schedule/interrupt.h"
#include "schedule/tuner_start.h"
#include "space/knob_schema.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

// Spaces with more valid configs than this are not counted: a run without a trial count then
// measures this many.
constexpr uint64_t kMaxDefaultTrials = 100000;

// A folder of its own for the staged spec the worker processes read, removed at the end.
class StagingDir {
 public:
  StagingDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tensortune-kernel-XXXXXX";
    if (!mkdtemp(pattern.data())) throw EnvironmentError("cannot create a temporary folder for the kernel spec");
    path_ = pattern;
  }
  ~StagingDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<size_t> ValueIndices(const UserKernelTemplate& kernel, const ConfigSpace& space, const Config& config) {
  std::vector<size_t> indices;
  const std::vector<std::string> labels = kernel.Labels(space, config);
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto& all = kernel.spec().tune_params[i].labels;
    indices.push_back(static_cast<size_t>(std::find(all.begin(), all.end(), labels[i]) - all.begin()));
  }
  return indices;
}

std::string ReadSpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read kernel spec '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

KernelTuneOutcome TuneUserKernel(const UserKernelSpec& spec, const KernelTuneOptions& o,
                                 const std::atomic<bool>* interrupt,
                                 const std::function<void(int64_t, int64_t)>& on_batch) {
  if (o.trials < 0 || o.trials > kMaxTrials)
    throw UserError("trials must be 0 (every valid config) to " + std::to_string(kMaxTrials));
  CheckMeasuringTimes(o.timeout_s, 0.0);
  TaskTuneOptions options = o.tuning;
  options.retime_share = 0;  // Kernel Tuner's `iterations` timed runs per config, as its users expect
  options.trials = 1;
  options.Check();
  UserKernelTemplate kernel(spec);
  const Workload workload = kernel.ProblemWorkload();
  StagingDir staging;
  kernel.Stage(staging.path() + "/spec.json");
  OpenClMeasurerOptions measuring;
  measuring.worker_path = o.worker_path.empty() ? DefaultWorkerPath() : o.worker_path;
  measuring.device_spec = o.device;
  measuring.timeout_s = o.timeout_s;
  measuring.builders = o.builders;
  measuring.min_time_s = 0;  // Kernel Tuner's `iterations` timed runs, no more
  measuring.max_repeats = spec.iterations;
  const auto measurer = MakeDeviceMeasurer(measuring);
  ConfigSpace space = kernel.Space(workload, measurer->limits());
  CheckSpaceHasValidConfig(space, {});
  KernelTuneOutcome outcome;
  const auto valid = CountValidConfigs(space, kMaxDefaultTrials);
  if (valid && *valid <= kMaxDefaultTrials) outcome.valid_configs = static_cast<int64_t>(*valid);
  options.trials = o.trials > 0 ? o.trials : static_cast<int64_t>(kMaxDefaultTrials);
  if (outcome.valid_configs > 0) options.trials = std::min(options.trials, outcome.valid_configs);
  options.tuner_options = WithBudget(options.tuner, options.tuner_options, options.trials);
  CheckTunerChoice(options.tuner, space, options.seed, options.tuner_options);
  const TemplateRef ref{spec.kernel_name, kUserKernelOp, kernel.IdentityHash(), KnobSchema(space)};
  TuningTask task(&kernel, workload, std::move(space));
  auto store = SqliteHistoryStore::Open(o.db);  // the first thing that writes
  const TaskIds ids = store->EnsureTask(workload, kUserKernelFlops, ref, measurer->device());
  store->EnsureUserSpace(ids.kernel_template, kernel.SpaceJson());
  int64_t measured = 0;
  const auto observe = [&](const TuningTask&, const std::vector<Config>&, const std::vector<MeasureResult>& results) {
    measured += static_cast<int64_t>(results.size());
    if (on_batch) on_batch(measured, options.trials);
  };
  const TaskTuneReport report = TuneTask(*store, *measurer, task, ids, ref, options, interrupt, observe);
  outcome.run_id = report.run_id;
  outcome.warm_start = report.warm_start;
  outcome.device = measurer->device();
  outcome.workload = workload.Key();
  outcome.template_hash = ref.source_hash;
  outcome.measured = report.end.measured;
  outcome.interrupted = report.end.interrupted;
  outcome.exhausted =
      report.end.exhausted || (outcome.valid_configs >= 0 && report.end.measured >= outcome.valid_configs);
  for (TrialRecord& t : store->Trials(ids)) {
    const auto config = task.space().FromKey(t.config_key);
    if (!config) continue;  // a config of parameter values no longer listed
    outcome.trials.push_back(
        {ValueIndices(kernel, task.space(), *config), t.config_key, std::move(t.result), t.run_id});
  }
  return outcome;
}

int RunKernelTune(const std::string& spec_path, const KernelTuneOptions& o, bool json, ProgressMode progress_mode,
                  std::ostream& out) {
  const std::string text = ReadSpecFile(spec_path);
  const std::filesystem::path base = std::filesystem::absolute(spec_path).parent_path();
  const UserKernelSpec spec = ParseUserKernelSpec(text, base.string());
  InterruptGuard guard;
  std::optional<Progress> progress;  // made once the run knows its trials
  const auto on_batch = [&](int64_t done, int64_t total) {
    if (!progress) progress.emplace(out, total, progress_mode);
    ProgressState state;
    state.done = done;
    progress->Update(state);
  };
  KernelTuneOutcome r;
  try {
    r = TuneUserKernel(spec, o, guard.flag(), on_batch);
  } catch (const std::exception&) {
    if (progress) progress->Finish();
    throw;
  }
  if (progress) progress->Finish();
  const KernelTrial* best = nullptr;
  std::map<std::string, int64_t> statuses;
  for (const KernelTrial& t : r.trials) {
    ++statuses[std::string(ToString(t.result.status))];
    if (t.result.ok() && (!best || t.result.time_s < best->result.time_s)) best = &t;
  }
  const auto mean_ms = [](const MeasureResult& m) {
    double sum = 0;
    for (double t : m.times_s) sum += t;
    return m.times_s.empty() ? 0.0 : 1e3 * sum / static_cast<double>(m.times_s.size());
  };
  if (json) {
    nlohmann::json j = {{"run_id", r.run_id},
                        {"db", o.db},
                        {"kernel", spec.kernel_name},
                        {"workload", r.workload},
                        {"template_hash", r.template_hash},
                        {"device", r.device.name},
                        {"tuner", o.tuning.tuner},
                        {"measured", r.measured},
                        {"trials_in_history", r.trials.size()},
                        {"statuses", statuses},
                        {"exhausted", r.exhausted},
                        {"interrupted", r.interrupted}};
    if (!r.warm_start.empty()) j["warm_start"] = r.warm_start;
    j["best"] = best ? nlohmann::json{{"config_key", best->config_key}, {"time_ms", mean_ms(best->result)}}
                     : nlohmann::json(nullptr);
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format("run {}: {} trials of kernel {} ({}) on {}; {} in the history", r.run_id, r.measured,
                       spec.kernel_name, r.workload, r.device.name, r.trials.size());
    for (const auto& [status, count] : statuses) out << fmt::format(", {} {}", count, status);
    out << "\n";
    if (!r.warm_start.empty()) out << r.warm_start << "\n";
    if (r.exhausted) out << "the search space is exhausted: every valid configuration has been measured\n";
    if (r.interrupted) out << "interrupted: every finished batch is saved in " << o.db << "\n";
    if (best)
      out << fmt::format("best config: {}\n  time {:.4f} ms (mean of {} runs){}\n", best->config_key,
                         mean_ms(best->result), best->result.times_s.size(),
                         spec.HasAnswer() || !spec.reference_config.empty() ? ", verified" : "");
    else
      out << "no configuration succeeded\n";
  }
  if (r.interrupted) return kInterruptedExitCode;
  return best ? 0 : 1;
}

}  // namespace tt
