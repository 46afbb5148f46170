#include "cli/compare_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "cli/pins.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "core/rng.h"
#include "core/statistics.h"
#include "history/sqlite_history_store.h"
#include "interchange/kernel_tuner_cache.h"
#include "measure/replay_measurer.h"
#include "ops/kernel_template.h"
#include "schedule/replay.h"
#include "tuners/tuner_factory.h"
#include "warmstart/cross_device.h"

namespace tt {
namespace {

constexpr int64_t kCheckpoints[] = {25, 50, 100, 200, 300};
constexpr double kTargets[] = {0.90, 0.95, 0.99};

std::pair<TaskIds, DeviceInfo> PickRecordedDevice(const std::vector<std::pair<TaskIds, DeviceInfo>>& tasks,
                                                  const std::string& spec, const std::string& what) {
  if (tasks.empty()) throw UserError("no trials of " + what + " are recorded; record some with `tensortune sweep`");
  std::string known;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const auto& name = tasks[i].second.name;
    if (spec == std::to_string(i) || (!spec.empty() && name.find(spec) != std::string::npos)) return tasks[i];
    known += fmt::format("{}{}: {}", known.empty() ? "" : "; ", i, name);
  }
  if (spec.empty() && tasks.size() == 1) return tasks.front();
  throw UserError((spec.empty() ? "several devices recorded " : "no recorded device matches '" + spec + "' for ") +
                  what + " (" + known + "): pick one with --device");
}

std::string TableRow(const std::string& tuner, const std::vector<ReplayRun>& runs, double best_recorded,
                     const std::vector<int64_t>& checkpoints) {
  const ReplaySummary summary =
      SummarizeReplays(runs, best_recorded, checkpoints, std::vector<double>(std::begin(kTargets), std::end(kTargets)));
  std::string row = "| " + tuner;
  for (const Quartiles& q : summary.percent_at) row += fmt::format(" | {:.1f} [{:.1f}-{:.1f}]", q.median, q.q1, q.q3);
  for (const Reach& reach : summary.to_target)
    row += std::isinf(reach.median_trials)
               ? fmt::format(" | never ({}/{})", reach.runs_that_reached, runs.size())
               : fmt::format(" | {:.0f} ({}/{})", reach.median_trials, reach.runs_that_reached, runs.size());
  return row + fmt::format(" | {:.3f} |\n", summary.overhead_ms_per_trial);
}

void WriteRun(std::ofstream& out, const std::string& space, const std::string& device, const std::string& tuner,
              int64_t seed, const ReplayRun& run, double best_recorded) {
  std::vector<double> fraction;
  for (double b : run.best_so_far) fraction.push_back(std::round(1e6 * b / best_recorded) / 1e6);
  const nlohmann::json line = {
      {"space", space},
      {"device", device},
      {"tuner", tuner},
      {"seed", seed},
      {"fraction", fraction},
      {"tuner_ms_per_trial", 1e3 * run.tuner_seconds / std::max<size_t>(run.best_so_far.size(), 1)}};
  out << line.dump() << "\n" << std::flush;
}

// How much of the valid space the recording covers: counted exactly when the space can be
// (CountValidConfigs), else estimated from a fixed sample of points.
std::string RecordedShare(const ConfigSpace& space, int64_t valid_recorded) {
  constexpr uint64_t kSample = 200000;
  const std::optional<uint64_t> counted = CountValidConfigs(space);
  const bool exact = counted.has_value();
  double valid = static_cast<double>(counted.value_or(0));
  if (!exact) {
    Rng rng(1);
    for (uint64_t i = 0; i < kSample; ++i) valid += space.IsValid(space.Random(rng));
    valid = std::max(valid / kSample * static_cast<double>(space.Size()), static_cast<double>(valid_recorded));
  }
  const double share = valid > 0 ? valid_recorded / valid : 1;
  std::string text = fmt::format("Recorded {} of {}{:.0f} valid configs of the space ({:.3g}%).\n", valid_recorded,
                                 exact ? "" : "about ", valid, 100 * share);
  if (share < 1)
    text +=
        "warning: the recording is a sample. Tuners search the whole space; a config that was not recorded "
        "is answered like a failed build (compile_error) and costs a trial.\n";
  return text;
}

void CheckOptions(const CompareOptions& o) {
  if (o.space.empty() == (o.op.empty() || o.shape.empty()))
    throw UserError("compare needs --op and --shape of a built-in operator, or --space NAME of an imported kernel");
  CheckCount("--seeds", o.seeds, kMaxSeeds);
  CheckCount("--trials", o.trials, kMaxTrials);
  CheckCount("--batch-size", o.batch_size, kMaxBatchSize);
  if (o.tuners.empty()) throw UserError("--tuners names no tuner");
  if (!std::filesystem::exists(o.db)) throw UserError("no history database at " + o.db);
}

// What is replayed: a workload of a built-in template, or a user-defined kernel.
struct ReplayTarget {
  const KernelTemplate* kernel = nullptr;  // null for a user-defined kernel
  Workload workload;
  std::string what;
  TaskIds ids;
  DeviceInfo device;
  ConfigSpace space;
  TemplateRef kernel_template;
};

ReplayTarget BuiltInTarget(const CompareOptions& o, const SqliteHistoryStore& store) {
  ReplayTarget t;
  t.workload = ParseWorkload(o.op, o.shape, o.shape_flags);
  t.kernel = &PickTemplate(t.workload, o.kernel_template);
  t.what = t.workload.Key() + " with template " + std::string(t.kernel->name());
  const TemplateRef ref{std::string(t.kernel->name()), std::string(t.kernel->op()), t.kernel->SourceHash(), ""};
  std::tie(t.ids, t.device) = PickRecordedDevice(store.RecordedTasks(t.workload, ref), o.device, t.what);
  t.kernel_template = ref;
  // An imported device's limits are unknown: none apply.
  t.space = t.kernel->Space(t.workload, LimitsOf(t.device));
  return t;
}

// The parameters of a user-defined space, for telling spaces of one kernel name apart.
std::string ParameterNames(const std::string& space_json) {
  std::string names;
  for (const auto& knob : nlohmann::json::parse(space_json).at("knobs"))
    names += (names.empty() ? "" : ", ") + knob.at("name").get<std::string>();
  return names;
}

// One imported space of `name` and its recorded devices, as a choice for --space NAME@ID.
struct SpaceChoice {
  const UserSpaceRecord* space;
  std::vector<std::pair<TaskIds, DeviceInfo>> tasks;  // of every problem size

  std::string Id() const { return space->kernel_template.source_hash.substr(0, 8); }
  bool OnDevice(const std::string& fragment) const {
    return std::any_of(tasks.begin(), tasks.end(),
                       [&](const auto& t) { return t.second.name.find(fragment) != std::string::npos; });
  }
  std::string Describe() const {
    std::vector<std::string> devices;
    for (const auto& t : tasks)
      if (std::find(devices.begin(), devices.end(), t.second.name) == devices.end()) devices.push_back(t.second.name);
    return fmt::format("{}@{} (parameters {}; on {})", space->kernel_template.name, Id(),
                       ParameterNames(space->space_json), fmt::join(devices, ", "));
  }
};

// An imported Kernel Tuner space: its recorded configurations are its valid ones. Spaces of
// one kernel name with other parameters are other spaces: NAME@ID picks one (ID: the start of
// its source hash, as the choices list it), and so does --device when only one has trials there.
ReplayTarget UserTarget(const CompareOptions& o, const SqliteHistoryStore& store) {
  const size_t at = o.space.find('@');
  const std::string name = o.space.substr(0, at), id = at == std::string::npos ? "" : o.space.substr(at + 1);
  const auto spaces = store.UserSpaces(name);
  if (spaces.empty())
    throw UserError("no user-defined kernel '" + name + "' in " + o.db + "; import its Kernel Tuner cache file");
  std::vector<SpaceChoice> choices, fitting;
  for (const auto& space : spaces) {
    SpaceChoice choice{&space, {}};
    for (const auto& w : space.workloads)
      for (auto& task : store.RecordedTasks(w, space.kernel_template)) choice.tasks.push_back(std::move(task));
    choices.push_back(choice);
    if ((id.empty() || choice.Id().rfind(id, 0) == 0) && (o.device.empty() || choice.OnDevice(o.device)))
      fitting.push_back(choice);
  }
  if (fitting.size() != 1) {
    std::vector<std::string> listed;
    for (const auto& c : choices) listed.push_back(c.Describe());
    const std::string where = o.device.empty() ? "" : " on a device matching '" + o.device + "'";
    throw UserError(
        fitting.empty()
            ? fmt::format("no imported space '{}'{}: its spaces are {}", o.space, where, fmt::join(listed, "; "))
            : fmt::format("{} imported spaces are named '{}'{}: {}; pick one with --space NAME@ID", fitting.size(),
                          o.space, where, fmt::join(listed, "; ")));
  }
  const UserSpaceRecord& user = *fitting.front().space;
  if (user.workloads.size() != 1) {
    std::vector<std::string> sizes;
    for (const auto& w : user.workloads) sizes.push_back(w.Key());
    throw UserError("kernel '" + o.space + "' has trials of " + std::to_string(user.workloads.size()) +
                    " problem sizes (" + fmt::format("{}", fmt::join(sizes, ", ")) + ")");
  }
  ReplayTarget t;
  t.workload = user.workloads.front();
  t.what = "kernel " + user.kernel_template.name + "@" + fitting.front().Id() + " (" + t.workload.Key() + ")";
  std::tie(t.ids, t.device) =
      PickRecordedDevice(store.RecordedTasks(t.workload, user.kernel_template), o.device, t.what);
  t.kernel_template = user.kernel_template;
  std::vector<std::string> keys;
  for (const auto& trial : store.Trials(t.ids)) keys.push_back(trial.config_key);
  t.space = UserSpaceFromJson(user.space_json, keys);
  return t;
}

// The recorded trials a replay answers from: final results by config key (the environment's
// failures left out), with how many ran ok, how many are valid in `space`, and the best.
struct RecordedTrials {
  std::unordered_map<std::string, MeasureResult> results;
  int64_t ok = 0, valid = 0;
  double best_gflops = 0;
};

RecordedTrials ReadRecorded(const SqliteHistoryStore& store, const TaskIds& ids, const ConfigSpace& space) {
  RecordedTrials recorded;
  for (const auto& trial : store.Trials(ids)) {
    if (trial.result.transient) continue;  // the environment failed, not the config
    const auto config = space.FromKey(trial.config_key);
    if (!config || !recorded.results.emplace(trial.config_key, trial.result).second) continue;
    recorded.valid += space.IsValid(*config);
    if (trial.result.ok()) ++recorded.ok, recorded.best_gflops = std::max(recorded.best_gflops, trial.result.gflops);
  }
  return recorded;
}

// Each tuner's median trials to 95% of the best recorded, cold and warm-started from other devices.
std::string CrossDeviceGains(const std::vector<std::pair<std::string, std::pair<double, double>>>& gains) {
  std::ostringstream out;
  out << "\nCross-device warm start (median trials to 95% of the best recorded, cold -> warm):\n";
  const auto text = [](double n) { return std::isinf(n) ? std::string("never") : fmt::format("{:.0f}", n); };
  for (const auto& [tuner, pair] : gains) {
    const auto [cold, warm] = pair;
    std::string ratio;
    if (!std::isinf(warm) && warm > 0)
      ratio = std::isinf(cold) ? ", cold never reached it" : fmt::format(", {:.2f}x fewer", cold / warm);
    out << fmt::format("  {}: {} -> {}{}\n", tuner, text(cold), text(warm), ratio);
  }
  return out.str();
}

}  // namespace

int RunCompare(const CompareOptions& o, std::ostream& out) {
  CheckOptions(o);
  auto store = SqliteHistoryStore::OpenReadOnly(o.db);
  // Tuners search the whole space (pinned knobs held), as on a device; what was not recorded
  // is answered like a failed build.
  ReplayTarget target = o.space.empty() ? BuiltInTarget(o, *store) : UserTarget(o, *store);
  const Workload& workload = target.workload;
  const std::string& what = target.what;
  const DeviceInfo& device = target.device;
  ConfigSpace& space = target.space;
  ApplyPins(space, o.pins);
  const RecordedTrials recorded_trials = ReadRecorded(*store, target.ids, space);
  const auto& recorded = recorded_trials.results;
  const double best_recorded = recorded_trials.best_gflops;
  if (best_recorded <= 0) throw UserError("no successful trial of " + what + " is recorded");
  std::vector<TunerSpec> specs;
  for (const auto& word : o.tuners) {
    specs.push_back(ParseTunerSpec(word));
    specs.back().options = WithBudget(specs.back().name, specs.back().options, o.trials);
    MakeTuner(specs.back().name, space, 1, specs.back().options);  // unknown names and options fail before any work
  }

  std::optional<CrossDeviceStart> cross;
  if (!o.warm_from.empty()) {
    CrossDeviceOptions cross_options;
    if (!(o.warm_from.size() == 1 && o.warm_from.front() == "auto")) cross_options.devices = o.warm_from;
    cross = CrossDeviceWarmStart(*store, workload, target.kernel_template, device, cross_options);
    if (cross->sources.empty()) throw UserError("--warm-from auto: no other device recorded " + what);
    out << "Warm start from " << cross->Describe() << ".\n";
  }
  std::vector<int64_t> checkpoints;
  for (int64_t c : kCheckpoints)
    if (c <= o.trials) checkpoints.push_back(c);
  out << fmt::format("{} on {}: {} recorded configs ({} ok), best recorded {:.2f} GFLOPS\n", what, device.name,
                     recorded.size(), recorded_trials.ok, best_recorded);
  out << RecordedShare(space, recorded_trials.valid);
  out << fmt::format(
      "{} seeds x {} trials per tuner, batches of {}. Best so far in % of the best recorded: "
      "median [quartiles]. Trials to reach a target: median (seeds that reached it).\n\n",
      o.seeds, o.trials, o.batch_size);
  std::string header = "| tuner", rule = "|---";
  for (int64_t c : checkpoints) header += fmt::format(" | @{}", c), rule += "|---";
  for (double t : kTargets) header += fmt::format(" | to {:.0f}%", 100 * t), rule += "|---";
  out << header << " | overhead ms/trial |\n" << rule << "|---|\n";

  std::optional<std::ofstream> runs_out;
  if (!o.runs_out.empty()) {
    runs_out.emplace(o.runs_out, std::ios::app);
    if (!*runs_out) throw UserError("cannot write --runs-out " + o.runs_out);
  }
  ReplayMeasurer replay(recorded);
  std::string notes;
  std::vector<double> fits;
  std::vector<std::pair<std::string, std::pair<double, double>>> gains;  // tuner: cold and warm trials to 95%
  for (const TunerSpec& spec : specs) {
    const bool uses_warm_start = MakeTuner(spec.name, space, 1, spec.options)->UsesWarmStart();
    if (cross && !uses_warm_start)
      notes += fmt::format("{} cannot use warm-start records: its warm replay would be its cold one\n", spec.label);
    for (const bool warm : {false, true}) {
      if (warm && (!cross || !uses_warm_start)) continue;
      const std::string name = spec.label + (warm ? " warm" : "");
      std::vector<ReplayRun> runs;
      for (int64_t seed = 1; seed <= o.seeds; ++seed) {
        TuningTask task(target.kernel, workload, space, [&](const ConfigSpace& s) {
          auto tuner = MakeTuner(spec.name, s, static_cast<uint64_t>(seed), spec.options);
          if (warm) tuner->Prime(cross->warm_start);
          return tuner;
        });
        runs.push_back(Replay(task, replay, o.trials, o.batch_size));
        if (runs_out)
          WriteRun(*runs_out, o.space.empty() ? workload.Key() : o.space, device.name, name, seed, runs.back(),
                   best_recorded);
      }
      out << TableRow(name, runs, best_recorded, checkpoints) << std::flush;
      std::vector<double> to95;
      for (const auto& r : runs) to95.push_back(TrialsToReach(r, 0.95 * best_recorded));
      if (!warm && uses_warm_start)
        gains.push_back({spec.label, {Quantile(to95, 0.5), 0}});
      else if (warm)
        gains.back().second.second = Quantile(to95, 0.5);
      for (const auto& r : runs) fits.insert(fits.end(), r.model_fit_seconds.begin(), r.model_fit_seconds.end());
      if (!fits.empty())
        notes += fmt::format(
            "{}: {} model trainings, median {:.1f} ms each (max {:.1f} ms), included in the overhead\n", name,
            fits.size(), 1e3 * Quantile(fits, 0.5), 1e3 * *std::max_element(fits.begin(), fits.end()));
      fits.clear();
    }
  }
  out << (notes.empty() ? "" : "\n" + notes);
  if (cross) out << CrossDeviceGains(gains);
  return 0;
}

}  // namespace tt
