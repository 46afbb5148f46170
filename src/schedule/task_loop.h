#pragma once
// The propose -> claim -> measure -> record -> learn cycle, one round at a time (RunStep) or
// until a budget is spent (RunTaskLoop). Shared by tune, sweep, compare and tune-network.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/measurer.h"
#include "schedule/budget.h"
#include "schedule/run_recorder.h"
#include "schedule/tuning_task.h"

namespace tt {

struct StepOutcome {
  int64_t measured = 0;    // configs measured and recorded this round
  bool exhausted = false;  // the tuner had nothing left to propose
  MeasuredBatch::End end = MeasuredBatch::End::kComplete;
  std::string error;  // kBrokenEnvironment: what broke
};

// Called after each recorded round with the configs measured and their results.
using BatchObserver =
    std::function<void(const TuningTask&, const std::vector<Config>&, const std::vector<MeasureResult>&)>;

// The configs of `configs` that the recorder's run could claim (all of them without a recorder),
// measured, and what finished recorded: results[i] is of claimed[i]; fewer results than
// claimed configs when the batch was stopped or the environment broke (the rest are released).
struct ClaimedBatch {
  std::vector<Config> claimed;
  MeasuredBatch measured;
};
ClaimedBatch ClaimMeasureRecord(TuningTask& task, Measurer& measurer, RunRecorder* recorder,
                                std::vector<Config> configs, const std::atomic<bool>* stop);

// One round of at most `batch_size` configs. Without a recorder (replay) nothing is claimed or
// written. A stop or a broken environment keeps the configs finished before it.
StepOutcome RunStep(TuningTask& task, Measurer& measurer, RunRecorder* recorder, size_t batch_size,
                    const std::atomic<bool>* stop, const BatchObserver& observe = {});

struct LoopEnd {
  int64_t measured = 0;
  bool exhausted = false;    // every valid config of the space has been measured
  bool interrupted = false;  // the budget's interrupt flag stopped it
  std::string broken;        // non-empty: the environment broke; what was finished is recorded
};

LoopEnd RunTaskLoop(TuningTask& task, Measurer& measurer, Budget& budget, int64_t batch_size, RunRecorder* recorder,
                    const BatchObserver& observe = {});

}  // namespace tt
