#pragma once
// tune and sweep: one task's run from start to end (its tuner made and seeded from the history,
// a run recorded, batches measured and recorded until the budget is spent, the run ended with
// its status), as TuneNetwork is for a network. The caller parses and renders.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "history/trial_history.h"
#include "measure/measurer.h"
#include "schedule/retime_leaders.h"
#include "schedule/task_loop.h"
#include "schedule/tuning_task.h"
#include "warmstart/cross_device.h"

namespace tt {

// What a tune or sweep run does; the command line parses into it (defaults are the command's).
struct TaskTuneOptions {
  std::string tuner = "bo";  // a tuner's name or "auto"
  std::map<std::string, std::string> tuner_options;
  std::string recorded_tuner;  // what the run records as its tuner; empty: the tuner's own
  int64_t trials = 64;
  int64_t batch_size = 8;
  uint64_t seed = 1;
  double time_limit_s = 0;                         // > 0: stop after this many seconds
  bool retry_failed = false;                       // measure again configs whose only records are transient failures
  std::string command;                             // recorded with the run
  const CrossDeviceStart* cross_device = nullptr;  // other devices' records to prime the tuner with
  // After the search, the leading configs timed again side by side (schedule/retime_leaders.h),
  // at most this share of the trials measured. 0: none.
  double retime_share = 0.25;

  // Throws UserError (naming the options as the command line spells them) for a count or a
  // time out of range. The tuner's name and options need a space: CheckTunerChoice.
  void Check() const;
};

struct TaskTuneReport {
  int64_t run_id = 0;
  std::string warm_start;  // --tuner auto: the flow taken and why; else empty
  LoopEnd end;
  RetimeOutcome retimed;
  std::optional<TaskBest> best_before_retiming;
};

// `task` has no tuner yet (StartTaskTuner makes it). `options` are checked first. Called with
// the warm start's explanation before the first batch. Throws EnvironmentError when the
// environment breaks (the run is marked failed, its finished batches recorded) and rethrows
// what else stops it the same way.
TaskTuneReport TuneTask(TrialHistory& store, Measurer& measurer, TuningTask& task, const TaskIds& ids,
                        const TemplateRef& kernel_template, const TaskTuneOptions& options,
                        const std::atomic<bool>* interrupt, const BatchObserver& observe = {},
                        const std::function<void(const TaskTuneReport&)>& started = {});

}  // namespace tt
