#pragma once
// One tuning task: a workload computed by one kernel template on one device, its config
// space, and a tuner that proposes configs and learns from their results.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measure_result.h"
#include "history/trial_history.h"
#include "measure/measurer.h"
#include "ops/kernel_template.h"
#include "tuners/tuner.h"

namespace tt {

// The kernel template as the history records it: name, operator, source hash and the knob
// schema of `space` (what lets later versions with the same knobs share warm-start records).
TemplateRef TemplateRefOf(const KernelTemplate& kernel, const ConfigSpace& space);

// The best config of a task so far, from this run or from its history.
struct TaskBest {
  std::string config_key;
  double time_s = 0;
  double gflops = 0;
};

class TuningTask {
 public:
  using MakeTunerFn = std::function<std::unique_ptr<Tuner>(const ConfigSpace&)>;
  // `space` is moved in and owned; the tuner is made over it by `make_tuner` (now, or later by
  // StartTuner when it needs what the history holds: --tuner auto).
  // `kernel` may be null only for a replay of a user-defined (imported) space.
  TuningTask(const KernelTemplate* kernel, Workload workload, ConfigSpace space, const MakeTunerFn& make_tuner = {});
  void StartTuner(const MakeTunerFn& make_tuner);
  bool started() const { return tuner_ != nullptr; }

  const Workload& workload() const { return workload_; }
  const ConfigSpace& space() const { return *space_; }
  MeasureTask measure_task() const;  // carries the best time, so slow configs are timed less

  // What the history holds for this task: never proposed again. Returns how many records.
  size_t Seed(const std::vector<Observation>& history);
  void NoteBest(const std::optional<TaskBest>& best);                      // the history's best, if faster
  void ReplaceBest(const std::optional<TaskBest>& best) { best_ = best; }  // records timed again
  std::vector<Config> Propose(size_t max_size);                            // empty: the space holds nothing new
  void Learn(const std::vector<Config>& configs, const std::vector<MeasureResult>& results);

  const std::optional<TaskBest>& best() const { return best_; }
  int64_t measured() const { return measured_; }  // in this process
  double tuner_seconds() const { return tuner_seconds_; }
  std::vector<double> ModelFitSeconds() const { return tuner_->ModelFitSeconds(); }

 private:
  const KernelTemplate* kernel_;
  Workload workload_;
  std::unique_ptr<ConfigSpace> space_;  // stable address: the tuner keeps a reference
  std::unique_ptr<Tuner> tuner_;
  std::optional<TaskBest> best_;
  int64_t measured_ = 0;
  double tuner_seconds_ = 0;
};

}  // namespace tt
