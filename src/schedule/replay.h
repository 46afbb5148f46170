#pragma once
// Tuners replayed on a recorded space (what `tensortune compare` runs): each replayed run lets a
// task's tuner propose until a trial budget is spent while a measurer answers from the record,
// and keeps the best so far after every trial; the runs of one tuner over many seeds are then
// summed up as quartiles at checkpoints and trials to reach targets. Nothing is claimed or
// written (the task loop without a recorder).
#include <cstdint>
#include <vector>

#include "measure/measurer.h"
#include "schedule/tuning_task.h"

namespace tt {

// Best-so-far GFLOPS after each trial of one replayed run, and the tuner's own time.
struct ReplayRun {
  std::vector<double> best_so_far;
  double tuner_seconds = 0;
  std::vector<double> model_fit_seconds;  // each model training of the tuner, if it has a model
};

ReplayRun Replay(TuningTask& task, Measurer& measurer, int64_t trials, int64_t batch_size);

// The best so far after `trial` trials (1-based; past the run's end: its last); 0 for an empty run.
double BestAt(const ReplayRun& run, int64_t trial);
// The trials a run took to reach `target` GFLOPS; infinity when it never did.
double TrialsToReach(const ReplayRun& run, double target);

struct Quartiles {
  double q1 = 0, median = 0, q3 = 0;
};
struct Reach {
  double median_trials = 0;  // infinity when fewer than half the runs reached the target
  int64_t runs_that_reached = 0;
};
// One tuner's runs summed up: best so far in % of `best_recorded` at each checkpoint, trials to
// reach each target (a fraction of `best_recorded`), and the tuner's median milliseconds per trial.
struct ReplaySummary {
  std::vector<Quartiles> percent_at;  // one per checkpoint
  std::vector<Reach> to_target;       // one per target
  double overhead_ms_per_trial = 0;
};
ReplaySummary SummarizeReplays(const std::vector<ReplayRun>& runs, double best_recorded,
                               const std::vector<int64_t>& checkpoints, const std::vector<double>& targets);

}  // namespace tt
