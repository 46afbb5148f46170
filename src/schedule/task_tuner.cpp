#include "schedule/task_tuner.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "core/errors.h"
#include "core/option_checks.h"
#include "schedule/budget.h"
#include "schedule/run_recorder.h"
#include "schedule/tuner_start.h"

namespace tt {

void TaskTuneOptions::Check() const {
  CheckCount("--trials", trials, kMaxTrials);
  CheckCount("--batch-size", batch_size, kMaxBatchSize);
  CheckSeconds("--time-limit", time_limit_s, true, kMaxTimeLimitSeconds);
  CheckShare("--retime-share", retime_share);
}

TaskTuneReport TuneTask(TrialHistory& store, Measurer& measurer, TuningTask& task, const TaskIds& ids,
                        const TemplateRef& kernel_template, const TaskTuneOptions& o,
                        const std::atomic<bool>* interrupt, const BatchObserver& observe,
                        const std::function<void(const TaskTuneReport&)>& started) {
  o.Check();
  std::optional<TunerPrime> prime;
  if (o.cross_device && !o.cross_device->sources.empty())
    prime = TunerPrime{o.cross_device->warm_start,
                       "warm start from other devices' records of this task: " + o.cross_device->Describe()};
  const TunerStart start = StartTaskTuner(task, store, ids, kernel_template, o.tuner, o.seed, o.tuner_options,
                                          o.retry_failed, prime ? &*prime : nullptr);
  const nlohmann::json options_json = o.tuner_options;
  RunRecorder recorder(
      store, ids,
      {o.recorded_tuner.empty() ? start.tuner : o.recorded_tuner, options_json.dump(), o.seed, o.command, o.trials});
  TaskTuneReport report;
  report.run_id = recorder.run_id();
  report.warm_start = start.explanation;
  if (started) started(report);
  Budget budget(o.trials, o.time_limit_s, interrupt);
  try {
    report.end = RunTaskLoop(task, measurer, budget, o.batch_size, &recorder, observe);
    if (report.end.broken.empty() && !budget.interrupted() && !budget.time_up()) {
      report.best_before_retiming = HistoryBest(store, ids);
      const auto allowance = static_cast<int64_t>(o.retime_share * static_cast<double>(report.end.measured));
      report.retimed = RetimeWithin(store, measurer, {{&task, ids}}, allowance, interrupt);
      report.end.broken = report.retimed.broken;
      report.end.interrupted = budget.interrupted();
    }
  } catch (const std::exception& e) {
    recorder.End("failed", e.what());
    throw;
  }
  if (!report.end.broken.empty()) {
    recorder.End("failed", report.end.broken);
    throw EnvironmentError(report.end.broken + " (run " + std::to_string(recorder.run_id()) +
                           " is marked failed; its " + std::to_string(report.end.measured) +
                           " finished trials are recorded)");
  }
  recorder.End(report.end.interrupted ? "interrupted" : "finished");
  return report;
}

}  // namespace tt
