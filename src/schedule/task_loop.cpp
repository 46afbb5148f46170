#include "schedule/task_loop.h"

#include <algorithm>

namespace tt {

StepOutcome RunStep(TuningTask& task, Measurer& measurer, RunRecorder* recorder, size_t batch_size,
                    const std::atomic<bool>* stop, const BatchObserver& observe) {
  StepOutcome outcome;
  std::vector<Config> batch = task.Propose(batch_size);
  if (batch.empty()) {
    outcome.exhausted = true;
    return outcome;
  }
  if (recorder) batch = recorder->Claim(task, batch);  // others may hold some of them
  if (batch.empty()) return outcome;
  MeasuredBatch measured = measurer.Measure(task.measure_task(), batch, stop);
  const std::vector<Config> done(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(measured.results.size()));
  if (recorder) {
    recorder->Record(task, done, measured.results);
    if (!measured.complete()) recorder->ReleaseClaims();  // the configs never measured
  }
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
