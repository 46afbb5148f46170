#include "schedule/network_tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/option_checks.h"
#include "history/history_queries.h"
#include "ops/conv2d_templates.h"
#include "schedule/budget.h"
#include "schedule/first_guess.h"
#include "schedule/retime_leaders.h"
#include "schedule/run_recorder.h"
#include "schedule/sketch_prior.h"
#include "schedule/sketch_selector.h"
#include "schedule/task_loop.h"
#include "schedule/tuner_start.h"
#include "warmstart/flow.h"

namespace tt {
namespace {

constexpr int kDefaultAttempts = 3;        // configs tried for a task's default before giving up on it
constexpr size_t kTransferredGuesses = 2;  // similar workloads' configs among the first guesses
constexpr int64_t kFirstRoundGuesses = 2;  // guesses measured per task where the budget allows

struct Sketch {
  const KernelTemplate* kernel = nullptr;
  uint64_t seed = 0;
  TemplateRef ref;
  TaskIds ids;
  std::unique_ptr<TuningTask> task;
  std::unique_ptr<RunRecorder> recorder;  // made when the sketch is first measured
  // What its runs record as the tuner: "first-round" for the first round's guesses (and the
  // untuned default with --measure-default), then the tuner's name ("auto-gga" where --tuner
  // auto chose gga), so history tells them apart.
  std::string tuner = "first-round";
  SketchState state;
  int64_t trials = 0;  // on record: the history's when the run started, then each one this run measures
};

struct Slot {
  std::vector<Sketch> sketches;
  SchedulerTaskState scheduling;
};

std::string SketchNames(const std::vector<const KernelTemplate*>& kernels) {
  std::string names;
  for (const KernelTemplate* kernel : kernels) names += std::string(kernel->name()) + ",";
  return names;
}

std::string ResumeKey(const Network& network, const NetworkTuneOptions& o) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : network.layers) layers.push_back({l.op, l.shape, l.flags, l.repeat});
  return nlohmann::json{{"network", network.name},
                        {"layers", layers},
                        {"batch", o.batch},
                        {"trials", o.trials},
                        {"scheduler", o.scheduler},
                        {"sketch", o.sketch_policy},
                        {"tuner", o.tuner},
                        {"tuner_options", o.tuner_options},
                        {"seed", o.seed}}
      .dump();
}

// The state the report and the schedulers read, refreshed after every round.
void Refresh(Slot& slot, NetworkTaskReport& report) {
  double best = report.default_time_s.value_or(std::numeric_limits<double>::infinity());
  for (size_t s = 0; s < slot.sketches.size(); ++s) {
    const Sketch& sketch = slot.sketches[s];
    report.sketches[s].best = sketch.task->best();
    report.sketches[s].measured = sketch.task->measured();
    if (sketch.task->best()) best = std::min(best, sketch.task->best()->time_s);
  }
  slot.scheduling.best_time_s = best;
  slot.scheduling.exhausted =
      std::all_of(slot.sketches.begin(), slot.sketches.end(), [](const Sketch& s) { return s.state.exhausted; });
}

class NetworkRun {
 public:
  NetworkRun(SqliteHistoryStore& store, Measurer& measurer, const NetworkTuneOptions& o,
             const std::atomic<bool>* interrupt)
      : store_(store), measurer_(measurer), o_(o), interrupt_(interrupt), rng_(o.seed) {}

  void Prepare(const Network& network, const DeviceInfo& device, const DeviceLimits& limits);
  void Start(const Network& network);
  void FirstRound(Budget& budget);
  void Search(Budget& budget, const NetworkProgress& progress);
  void RetimeLeaders(const Budget& budget);
  void End(std::string_view status, std::string_view error = {});
  NetworkRunReport& report() { return report_; }

 private:
  std::vector<SketchEvidence> Evidence(const std::string& op) const;
  void UpdatePriors(size_t task);
  size_t MostPromising(size_t task);  // the sketch whose default the warm-up measures
  RunRecorder& Recorder(Sketch& sketch);
  std::optional<double> MeasureConfig(Sketch& sketch, const Config& config, Budget& budget);
  std::optional<double> MeasureDefault(Sketch& sketch, Budget& budget);
  std::vector<FirstGuess> Guesses(const Sketch& sketch) const;
  std::optional<FirstGuess> MeasureGuesses(Sketch& sketch, const std::vector<FirstGuess>& guesses, Budget& budget,
                                           size_t wanted = 1);
  void GiveFirstConfig(size_t task, Budget& budget, size_t guesses);
  void EndFirstGuessRun(Sketch& sketch);
  std::vector<size_t> HeaviestFirst() const;
  void StartTuner(size_t task, size_t sketch);
  [[noreturn]] void Broken(const std::string& error);

  SqliteHistoryStore& store_;
  Measurer& measurer_;
  const NetworkTuneOptions& o_;
  const std::atomic<bool>* interrupt_;
  Rng rng_;
  DeviceInfo device_;
  std::map<std::string, std::vector<SketchEvidence>> history_evidence_;  // per operator, read once
  // per operator and set of sketches (SketchNames): the best GFLOPS on record
  std::map<std::string, std::map<std::string, double>> history_gflops_;
  std::vector<Slot> slots_;
  NetworkRunReport report_;
};

void NetworkRun::Prepare(const Network& network, const DeviceInfo& device, const DeviceLimits& limits) {
  device_ = device;
  report_.network = network.name;
  report_.batch = o_.batch;
  report_.trials_budget = o_.trials;
  uint64_t stream = 0;
  for (NetworkTask& task : NetworkTasks(network, o_.batch)) {
    Slot slot;
    NetworkTaskReport report;
    const auto kernels = ApplicableTemplates(task.workload, o_.no_winograd);
    if (kernels.empty()) throw UserError("no kernel template computes " + task.workload.Key());
    report.flops = kernels.front()->Flops(task.workload);
    std::vector<Sketch> sketches;
    for (const KernelTemplate* kernel : kernels) {
      Sketch sketch;
      sketch.kernel = kernel;
      sketch.seed = o_.seed * 1'000'003 + ++stream;  // every sketch its own stream
      ConfigSpace space = kernel->Space(task.workload, limits);
      CheckTunerChoice(o_.tuner, space, sketch.seed, o_.tuner_options);  // before anything is written
      sketch.ref = TemplateRefOf(*kernel, space);
      sketch.task = std::make_unique<TuningTask>(kernel, task.workload, std::move(space));
      sketches.push_back(std::move(sketch));
    }
    for (Sketch& sketch : sketches) {  // every tuner choice checked: now the tasks' rows
      sketch.ids = store_.EnsureTask(task.workload, sketch.kernel->Flops(task.workload), sketch.ref, device);
      report.sketches.push_back({std::string(sketch.kernel->name()), 0, 0, std::nullopt});
      slot.sketches.push_back(std::move(sketch));
    }
    if (!history_evidence_.count(task.workload.op)) {
      std::map<std::string, SketchEvidence> by_workload;
      for (TemplateBest& b :
           HistoryQueries(store_).BestTimesByTemplate(task.workload.op, slot.sketches.front().ids.device)) {
        SketchEvidence& e = by_workload[b.workload.Key()];
        e.workload = std::move(b.workload);
        e.best_time_s[b.template_name] = b.time_s;
        e.trials[b.template_name] = b.trials;
      }
      auto& evidence = history_evidence_[task.workload.op];
      auto& gflops = history_gflops_[task.workload.op];  // each workload's best, by its sketches
      for (auto& [key, e] : by_workload) {
        double& best = gflops[SketchNames(ApplicableTemplates(e.workload, o_.no_winograd))];
        for (const auto& [name, time_s] : e.best_time_s)
          if (time_s > 0) best = std::max(best, kernels.front()->Flops(e.workload) / time_s * 1e-9);
        evidence.push_back(std::move(e));
      }
    }
    slot.scheduling.sketches = SketchNames(kernels);
    slot.scheduling.history_gflops = history_gflops_[task.workload.op][slot.scheduling.sketches];
    slot.scheduling.op = task.workload.op;
    slot.scheduling.flops = report.flops;
    slot.scheduling.weight = static_cast<double>(task.weight);
    report.task = std::move(task);
    slots_.push_back(std::move(slot));
    report_.tasks.push_back(std::move(report));
  }
}

void NetworkRun::Start(const Network& network) {
  std::vector<NetworkTaskRow> rows;
  for (const auto& t : report_.tasks) {
    std::string layers;
    for (const auto& name : t.task.layers) layers += (layers.empty() ? "" : ", ") + name;
    rows.push_back({slots_[rows.size()].sketches.front().ids.workload, t.task.weight, layers, std::nullopt});
  }
  const int64_t device_id = slots_.front().sketches.front().ids.device;
  NetworkRunInfo info{network.name, o_.batch,  o_.scheduler,           o_.sketch_policy, o_.tuner,
                      o_.seed,      o_.trials, ResumeKey(network, o_), o_.command};
  const auto start = store_.BeginNetworkRun(device_id, info, rows);
  report_.network_run_id = start.id;
  report_.resumed = start.resumed;
  for (size_t i = 0; i < slots_.size(); ++i) {
    report_.tasks[i].default_time_s = start.tasks[i].default_time_s;
    for (size_t s = 0; s < slots_[i].sketches.size(); ++s) {
      const size_t history = store_.MeasuredConfigs(slots_[i].sketches[s].ids, o_.retry_failed).size();
      report_.tasks[i].sketches[s].history = history;
      slots_[i].sketches[s].trials = static_cast<int64_t>(history);
      if (history > 0) report_.tasks[i].started_warm = true;
    }
  }
}

// The device's history of the operator, overlaid with what this run's tasks have reached.
std::vector<SketchEvidence> NetworkRun::Evidence(const std::string& op) const {
  std::map<std::string, SketchEvidence> by_workload;
  if (const auto h = history_evidence_.find(op); h != history_evidence_.end())
    for (const SketchEvidence& e : h->second) by_workload[e.workload.Key()] = e;
  for (const Slot& slot : slots_) {
    if (slot.scheduling.op != op) continue;
    for (const Sketch& sketch : slot.sketches) {
      const auto& best = sketch.task->best();
      if (!best || best->time_s <= 0) continue;
      SketchEvidence& e = by_workload[sketch.task->workload().Key()];
      e.workload = sketch.task->workload();
      const std::string name(sketch.kernel->name());
      auto [it, inserted] = e.best_time_s.emplace(name, best->time_s);
      if (!inserted) it->second = std::min(it->second, best->time_s);
      // Failed trials count too: a bound that errs towards counting a loss.
      int64_t& trials = e.trials[name];
      trials = std::max(trials, sketch.trials);
    }
  }
  std::vector<SketchEvidence> evidence;
  for (auto& [key, e] : by_workload) evidence.push_back(std::move(e));
  return evidence;
}

void NetworkRun::UpdatePriors(size_t task) {
  Slot& slot = slots_[task];
  std::vector<const KernelTemplate*> kernels;
  for (const Sketch& s : slot.sketches) kernels.push_back(s.kernel);
  const std::vector<SketchPrior> priors =
      SketchPriors(report_.tasks[task].task.workload, kernels, Evidence(slot.scheduling.op), device_);
  for (size_t s = 0; s < slot.sketches.size(); ++s) {
    slot.sketches[s].state.prior = priors[s].ratio;
    if (const auto& best = slot.sketches[s].task->best()) slot.sketches[s].state.best_time_s = best->time_s;
    report_.tasks[task].sketches[s].prior = priors[s].ratio;
    report_.tasks[task].sketches[s].prior_note =
        DescribePrior(priors[s], *kernels[s], report_.tasks[task].task.workload, device_);
  }
}

size_t NetworkRun::MostPromising(size_t task) {
  UpdatePriors(task);
  const auto& sketches = slots_[task].sketches;
  size_t best = 0;
  for (size_t s = 1; s < sketches.size(); ++s)
    if (sketches[s].state.prior > sketches[best].state.prior) best = s;
  return best;
}

RunRecorder& NetworkRun::Recorder(Sketch& sketch) {
  if (!sketch.recorder) {
    const nlohmann::json options = o_.tuner_options;
    sketch.recorder = std::make_unique<RunRecorder>(
        store_, sketch.ids,
        RunInfo{sketch.tuner, options.dump(), sketch.seed, o_.command, o_.trials, report_.network_run_id});
  }
  return *sketch.recorder;
}

[[noreturn]] void NetworkRun::Broken(const std::string& error) {
  throw EnvironmentError(error + " (network run " + std::to_string(report_.network_run_id) +
                         " is marked failed; its finished trials are recorded, and the same command continues it)");
}

// The config's time: the history's when it was measured before, else measured and recorded
// now; nullopt when it failed or was not measured (claimed by another process, stopped).
std::optional<double> NetworkRun::MeasureConfig(Sketch& sketch, const Config& config, Budget& budget) {
  const std::string key = sketch.task->space().Key(config);
  for (const MeasuredConfig& m : store_.MeasuredConfigs(sketch.ids))
    if (m.config_key == key) return m.status == MeasureStatus::kOk ? std::optional(m.time_s) : std::nullopt;
  // The task's tuner starts after the first round: these trials are recorded, not learned from here.
  const ClaimedBatch batch = ClaimMeasureRecord(*sketch.task, measurer_, &Recorder(sketch), {config}, interrupt_);
  if (batch.claimed.empty()) return std::nullopt;  // another process has it
  const MeasuredBatch& measured = batch.measured;
  budget.Spend(static_cast<int64_t>(measured.results.size()));
  sketch.trials += static_cast<int64_t>(measured.results.size());
  if (measured.end == MeasuredBatch::End::kBrokenEnvironment) Broken(measured.error);
  if (!measured.complete() || !measured.results.front().ok()) return std::nullopt;
  return measured.results.front().time_s;
}

// The untiled config of the sketch (or, when that fails, a few random valid ones): what the
// layer costs before any tuning. Read from the history when it was measured before.
std::optional<double> NetworkRun::MeasureDefault(Sketch& sketch, Budget& budget) {
  const ConfigSpace& space = sketch.task->space();
  Config config = UntiledConfig(space);
  for (int attempt = 0; attempt < kDefaultAttempts && !budget.Exhausted(); ++attempt) {
    if (attempt > 0 || !space.IsValid(config)) {
      const std::optional<Config> valid = DrawValidConfig(space, rng_);
      if (!valid) return std::nullopt;
      config = *valid;
    }
    if (const auto time_s = MeasureConfig(sketch, config, budget)) return time_s;
  }
  return std::nullopt;
}

std::vector<size_t> NetworkRun::HeaviestFirst() const {
  std::vector<size_t> order(slots_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto work = [&](size_t i) { return slots_[i].scheduling.weight * slots_[i].scheduling.flops; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return work(a) > work(b); });
  return order;
}

// The sketch's best guesses for its task (first_guess.h): the configs of the most similar
// workloads measured so far (this run's earlier tasks included), then its device-class
// starting config.
std::vector<FirstGuess> NetworkRun::Guesses(const Sketch& sketch) const {
  return FirstGuesses(store_, *sketch.kernel, sketch.ref, sketch.ids.device, sketch.task->workload(),
                      sketch.task->space(), device_, kTransferredGuesses, o_.warm_from_devices);
}

// Measures the guesses in order while the budget lasts until `wanted` of them measured ok; the
// fastest of those, if any.
std::optional<FirstGuess> NetworkRun::MeasureGuesses(Sketch& sketch, const std::vector<FirstGuess>& guesses,
                                                     Budget& budget, size_t wanted) {
  std::optional<FirstGuess> fastest;
  double fastest_s = 0;
  size_t measured = 0;
  for (const FirstGuess& guess : guesses) {
    if (budget.Exhausted() || measured == wanted) break;
    const std::optional<double> time_s = MeasureConfig(sketch, guess.config, budget);
    if (!time_s) continue;
    ++measured;
    if (!fastest || *time_s < fastest_s) fastest = guess, fastest_s = *time_s;
  }
  return fastest;
}

// The task's best guess, measured while the budget lasts: its own history's best when it has
// one, else the fastest of the most promising sketch's first `guesses` guesses that measure
// ok; without budget left the first guess is, unmeasured.
void NetworkRun::GiveFirstConfig(size_t task, Budget& budget, size_t guesses_wanted) {
  NetworkTaskReport& report = report_.tasks[task];
  if (const auto best = report.Best()) {
    report.first = FirstConfig{report.sketches[best->first].template_name, best->second.config_key,
                               "its own history (measured before this run)"};
    return;
  }
  Sketch& sketch = slots_[task].sketches[MostPromising(task)];
  const ConfigSpace& space = sketch.task->space();
  const std::string name(sketch.kernel->name());
  const std::vector<FirstGuess> guesses = Guesses(sketch);
  if (guesses.empty()) return;
  const std::optional<FirstGuess> measured = MeasureGuesses(sketch, guesses, budget, guesses_wanted);
  const FirstGuess& first = measured ? *measured : guesses.front();
  report.first = FirstConfig{name, space.Key(first.config), first.source};
  sketch.task->NoteBest(HistoryBest(store_, sketch.ids));
}

// Every task gets one good config measured before any task gets a second round: its best
// guess, heaviest tasks (weight x FLOPs) first, so that a budget smaller than the task count
// is spent where it matters; the others are labelled unmeasured. The untuned default only
// with --measure-default.
void NetworkRun::FirstRound(Budget& budget) {
  for (size_t i = 0; i < slots_.size(); ++i) {  // a resumed run, an earlier run of these workloads
    for (Sketch& sketch : slots_[i].sketches) sketch.task->NoteBest(HistoryBest(store_, sketch.ids));
    Refresh(slots_[i], report_.tasks[i]);
  }
  const std::vector<size_t> order = HeaviestFirst();
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    NetworkTaskReport& report = report_.tasks[i];
    // Two guesses (the best transfer and the device's start) where the budget gives every task
    // left two trials.
    const auto tasks_left = static_cast<int64_t>(order.size() - k);
    GiveFirstConfig(i, budget, budget.left() >= kFirstRoundGuesses * tasks_left ? kFirstRoundGuesses : 1);
    if (o_.measure_default && !report.default_time_s && !budget.Exhausted()) {
      report.default_time_s = MeasureDefault(slots_[i].sketches[MostPromising(i)], budget);
      if (report.default_time_s)
        store_.SetDefaultTime(report_.network_run_id, static_cast<int>(i), *report.default_time_s);
    }
    Refresh(slots_[i], report_.tasks[i]);
    // The first round counts as the task's first round for the schedulers.
    if (slots_[i].scheduling.rounds() == 0 && std::isfinite(slots_[i].scheduling.best_time_s))
      slots_[i].scheduling.best_after_round.push_back(slots_[i].scheduling.best_time_s);
    if (report.first)
      store_.SetFirstConfig(report_.network_run_id, static_cast<int>(i),
                            report.first->template_name + ": " + report.first->config_key, report.first->source,
                            report.Unmeasured());
  }
  // Each tuner starts at its sketch's first round (StartTuner), from everything recorded by then.
  for (auto& slot : slots_)
    for (Sketch& sketch : slot.sketches) EndFirstGuessRun(sketch);
  report_.trials_used = budget.used();
  if (std::isfinite(report_.LatencyS()) && report_.LatencyS() > 0 && budget.used() > 0)
    store_.RecordNetworkProgress(report_.network_run_id, budget.used(), report_.LatencyS());
}

void NetworkRun::EndFirstGuessRun(Sketch& sketch) {
  if (sketch.recorder) sketch.recorder->End("finished");  // the run of its first-round guesses
  sketch.recorder.reset();
}

// A sketch's tuner, made when the sketch is first given a round, so that it starts from
// everything recorded by then: the task's own trials; for a tuner other than auto (which reads
// the history its own way) the task's records on other devices (unless --warm-from none), and
// with --warm-similar the records of similar workloads on this device, this run's finished
// rounds included: the tasks tuned earlier in the run give the later ones a warm start.
void NetworkRun::StartTuner(size_t task, size_t s) {
  Sketch& sketch = slots_[task].sketches[s];
  std::optional<TunerPrime> prime;
  if (o_.tuner != "auto") {
    const FlowTask flow{sketch.task->workload(), sketch.ref, sketch.ids, &sketch.task->space(), o_.retry_failed};
    prime = NetworkTaskPrime(store_, flow, device_, o_.warm_similar, o_.warm_from_devices);
  }
  const TunerStart start = StartTaskTuner(*sketch.task, store_, sketch.ids, sketch.ref, o_.tuner, sketch.seed,
                                          o_.tuner_options, o_.retry_failed, prime ? &*prime : nullptr);
  report_.tasks[task].sketches[s].flow = start.explanation;
  sketch.tuner = start.tuner;
}

void NetworkRun::Search(Budget& budget, const NetworkProgress& progress) {
  auto scheduler = MakeTaskScheduler(o_.scheduler, o_.scheduling);
  auto selector = MakeSketchSelector(o_.sketch_policy, o_.scheduling.ucb_c);
  std::vector<SchedulerTaskState> states(slots_.size());
  while (!budget.Exhausted()) {
    for (size_t i = 0; i < slots_.size(); ++i) states[i] = slots_[i].scheduling;
    if (std::all_of(states.begin(), states.end(), [](const auto& s) { return s.exhausted; })) {
      report_.exhausted = true;
      break;
    }
    const size_t t = scheduler->Pick(states, rng_);
    Slot& slot = slots_[t];
    UpdatePriors(t);
    std::vector<SketchState> sketch_states;
    for (const Sketch& s : slot.sketches) sketch_states.push_back(s.state);
    const size_t s = selector->Pick(sketch_states, rng_);
    Sketch& sketch = slot.sketches[s];
    const int64_t used_before = budget.used();
    bool guessed = false;  // this look measured the sketch's first guesses: they are its round
    if (!sketch.task->started()) {
      // A sketch's first look is its best guess, not its tuner's first (random) configs: one or
      // two trials tell the selector whether the sketch deserves a round, where a whole round
      // on a sketch that loses cost each task's other sketches a batch each.
      if (!sketch.task->best()) {
        MeasureGuesses(sketch, Guesses(sketch), budget);
        sketch.task->NoteBest(HistoryBest(store_, sketch.ids));
        EndFirstGuessRun(sketch);
        guessed = budget.used() > used_before;
      }
      StartTuner(t, s);
    }
    const bool round_runs = !guessed && !budget.Exhausted();
    StepOutcome step;
    if (guessed) {
      ++sketch.state.rounds;
      ++report_.tasks[t].rounds;
    } else if (round_runs) {
      const auto size = static_cast<size_t>(std::min<int64_t>(o_.batch_size, budget.left()));
      step = RunStep(*sketch.task, measurer_, &Recorder(sketch), size, interrupt_);
      budget.Spend(step.measured);
      sketch.trials += step.measured;
      if (step.exhausted) {
        sketch.state.exhausted = true;
      } else {
        ++sketch.state.rounds;
        ++report_.tasks[t].rounds;
      }
    }
    if (sketch.task->best()) sketch.state.best_time_s = sketch.task->best()->time_s;
    Refresh(slot, report_.tasks[t]);
    report_.last_task = static_cast<int>(t);
    if (guessed || (round_runs && !step.exhausted))
      slot.scheduling.best_after_round.push_back(slot.scheduling.best_time_s);
    report_.trials_used = budget.used();
    if (std::isfinite(report_.LatencyS()) && budget.used() > used_before)
      store_.RecordNetworkProgress(report_.network_run_id, budget.used(), report_.LatencyS());
    if (step.end == MeasuredBatch::End::kBrokenEnvironment) Broken(step.error);
    if (progress) progress(report_);
  }
}

// The heaviest tasks first (weight x estimated latency), while the share of the trials allows.
void NetworkRun::RetimeLeaders(const Budget& budget) {
  RetimeReport& retimed = report_.retimed;
  retimed.latency_before_s = report_.LatencyS();
  auto allowance = static_cast<int64_t>(o_.retime_share * static_cast<double>(budget.used()));
  std::vector<std::pair<double, size_t>> heaviest;
  for (size_t t = 0; t < slots_.size(); ++t)
    if (const auto latency = report_.tasks[t].LatencyS())
      heaviest.emplace_back(-static_cast<double>(report_.tasks[t].task.weight) * *latency, t);
  std::sort(heaviest.begin(), heaviest.end());
  for (const auto& [weighted_latency, t] : heaviest) {
    if (allowance < kRetimeRounds || (interrupt_ && interrupt_->load())) break;
    std::vector<SketchRecords> records;
    for (Sketch& sketch : slots_[t].sketches) records.push_back({sketch.task.get(), sketch.ids});
    const RetimeOutcome outcome = RetimeWithin(store_, measurer_, records, allowance, interrupt_);
    if (outcome.measurements == 0) continue;
    allowance -= outcome.measurements;
    retimed.measurements += outcome.measurements;
    retimed.failed += outcome.failed;
    ++retimed.tasks;
    Refresh(slots_[t], report_.tasks[t]);
    if (!outcome.broken.empty()) Broken(outcome.broken);
  }
  if (retimed.measurements > 0 && std::isfinite(report_.LatencyS()))
    store_.RecordNetworkProgress(report_.network_run_id, budget.used(), report_.LatencyS());
}

void NetworkRun::End(std::string_view status, std::string_view error) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    NetworkTaskReport& report = report_.tasks[i];
    report.sketch_choice = report.ExplainChoice();
    if (report.first)
      store_.SetFirstConfig(report_.network_run_id, static_cast<int>(i),
                            report.first->template_name + ": " + report.first->config_key, report.first->source,
                            report.Unmeasured());
    if (const auto best = report.Best())
      store_.SetTaskSketch(report_.network_run_id, static_cast<int>(i), report.sketches[best->first].template_name,
                           report.sketch_choice);
  }
  for (auto& slot : slots_)
    for (Sketch& sketch : slot.sketches)
      if (sketch.recorder) sketch.recorder->End(status, error);
  store_.EndNetworkRun(report_.network_run_id, status, error);
}

}  // namespace

void NetworkTuneOptions::Check() const {
  CheckCount("--trials", trials, kMaxTrials);
  CheckCount("--batch-size", batch_size, kMaxBatchSize);
  CheckCount("--batch", batch, kMaxNetworkBatch);
  CheckSeconds("--time-limit", time_limit_s, true, kMaxTimeLimitSeconds);
  if (!(scheduling.ucb_c >= 0 && scheduling.ucb_c <= 100)) throw UserError("--ucb-c must be a number from 0 to 100");
  CheckShare("--retime-share", retime_share);
  CheckTaskSchedulerName(scheduler);
  CheckSketchSelectorName(sketch_policy);
}

NetworkRunReport TuneNetwork(SqliteHistoryStore& store, Measurer& measurer, const DeviceInfo& device,
                             const DeviceLimits& limits, const Network& network, const NetworkTuneOptions& o,
                             const std::atomic<bool>* interrupt, const NetworkProgress& progress) {
  o.Check();
  NetworkRun run(store, measurer, o, interrupt);
  run.Prepare(network, device, limits);
  run.Start(network);
  Budget budget(o.trials, o.time_limit_s, interrupt, store.NetworkTrialsUsed(run.report().network_run_id));
  try {
    run.FirstRound(budget);
    if (progress) progress(run.report());
    run.Search(budget, progress);
    if (o.retime_share > 0 && !budget.interrupted() && !budget.time_up()) run.RetimeLeaders(budget);
  } catch (const std::exception& e) {
    try {
      run.End("failed", e.what());
    } catch (const std::exception&) {  // the database itself may be what broke
    }
    throw;
  }
  run.report().trials_used = budget.used();
  run.report().interrupted = budget.interrupted();
  run.End(budget.interrupted() ? "interrupted" : "finished");
  return std::move(run.report());
}

}  // namespace tt
