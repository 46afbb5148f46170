#include "schedule/run_plan.h"

#include <algorithm>

#include "tuners/tuner_factory.h"

namespace tt {

RunPlan PlanRun(const TaskTuneOptions& asked, int64_t sweep_limit, const ConfigSpace& space) {
  if (sweep_limit <= 0) return {asked.tuner, asked.trials};
  const auto limit = static_cast<uint64_t>(sweep_limit);
  if (const auto valid = CountValidConfigs(space, limit); valid && *valid <= limit)
    return {"grid", std::max<int64_t>(static_cast<int64_t>(*valid), 1), true};
  return {"random", sweep_limit};
}

TaskTuneOptions PlannedOptions(const TaskTuneOptions& asked, const RunPlan& plan, int64_t sweep_limit,
                               int parallelism) {
  TaskTuneOptions options = asked;
  options.tuner = plan.tuner;
  options.trials = plan.trials;
  options.recorded_tuner = sweep_limit > 0 ? "sweep-" + plan.tuner : "";
  // Tuners whose defaults scale with the budget are told the trials of this run.
  options.tuner_options = WithBudget(plan.tuner, asked.tuner_options, plan.trials);
  options.batch_size *= parallelism;
  return options;
}

bool WantsOtherDevices(const std::vector<std::string>& warm_from, const RunPlan& plan, int64_t sweep_limit) {
  return plan.tuner != "auto" && sweep_limit == 0 && !(warm_from.size() == 1 && warm_from.front() == "none");
}

bool NamesDevices(const std::vector<std::string>& warm_from) {
  return !warm_from.empty() && !(warm_from.size() == 1 && (warm_from.front() == "auto" || warm_from.front() == "none"));
}

}  // namespace tt
