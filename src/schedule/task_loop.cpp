#include "schedule/task_loop.h"

#include <algorithm>

namespace tt {

ClaimedBatch ClaimMeasureRecord(TuningTask& task, Measurer& measurer, RunRecorder* recorder,
                                std::vector<Config> configs, const std::atomic<bool>* stop) {
  ClaimedBatch batch;
  batch.claimed = recorder ? recorder->Claim(task, configs) : std::move(configs);  // others may hold some
  if (batch.claimed.empty()) return batch;
  batch.measured = measurer.Measure(task.measure_task(), batch.claimed, stop);
  if (recorder) {
    const auto finished = static_cast<std::ptrdiff_t>(batch.measured.results.size());
    recorder->Record(task, {batch.claimed.begin(), batch.claimed.begin() + finished}, batch.measured.results);
    if (!batch.measured.complete()) recorder->ReleaseClaims();  // the configs never measured
  }
  return batch;
}

StepOutcome RunStep(TuningTask& task, Measurer& measurer, RunRecorder* recorder, size_t batch_size,
                    const std::atomic<bool>* stop, const BatchObserver& observe) {
  StepOutcome outcome;
  std::vector<Config> proposed = task.Propose(batch_size);
  if (proposed.empty()) {
    outcome.exhausted = true;
    return outcome;
  }
  ClaimedBatch batch = ClaimMeasureRecord(task, measurer, recorder, std::move(proposed), stop);
  if (batch.claimed.empty()) return outcome;
  MeasuredBatch& measured = batch.measured;
  const std::vector<Config> done(batch.claimed.begin(),
                                 batch.claimed.begin() + static_cast<std::ptrdiff_t>(measured.results.size()));
  task.Learn(done, measured.results);
  if (observe && !done.empty()) observe(task, done, measured.results);
  outcome.measured = static_cast<int64_t>(done.size());
  outcome.end = measured.end;
  outcome.error = std::move(measured.error);
  return outcome;
}

LoopEnd RunTaskLoop(TuningTask& task, Measurer& measurer, Budget& budget, int64_t batch_size, RunRecorder* recorder,
                    const BatchObserver& observe) {
  LoopEnd end;
  while (!budget.Exhausted()) {
    const auto size = static_cast<size_t>(std::min(batch_size, budget.left()));
    const StepOutcome step = RunStep(task, measurer, recorder, size, budget.interrupt(), observe);
    budget.Spend(step.measured);
    end.measured += step.measured;
    if (step.exhausted) {
      end.exhausted = true;
      break;
    }
    if (step.end == MeasuredBatch::End::kBrokenEnvironment) {
      end.broken = step.error;
      break;
    }
  }
  end.interrupted = budget.interrupted();
  return end;
}

}  // namespace tt
