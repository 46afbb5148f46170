#include "schedule/tuner_start.h"

#include "schedule/run_recorder.h"
#include "tuners/tuner_factory.h"
#include "warmstart/flow.h"

namespace tt {

constexpr const char* kAuto = "auto";

void CheckTunerChoice(const std::string& name, const ConfigSpace& probe, uint64_t seed,
                      const std::map<std::string, std::string>& options) {
  if (name == kAuto) {
    for (const auto& [tuner, passed_on] : FlowOptions::Parse(options).flow_tuner_options)
      MakeTuner(tuner, probe, seed, passed_on);
  } else
    MakeTuner(name, probe, seed, options);
}

TunerStart StartTaskTuner(TuningTask& task, const TrialHistory& store, const TaskIds& ids,
                          const TemplateRef& kernel_template, const std::string& name, uint64_t seed,
                          const std::map<std::string, std::string>& options, bool retry_failed,
                          const TunerPrime* prime) {
  if (name != kAuto) {
    bool primed = false;
    task.StartTuner([&](const ConfigSpace& space) {
      auto tuner = MakeTuner(name, space, seed, options);
      primed = prime && tuner->UsesWarmStart();
      if (primed) tuner->Prime(prime->warm_start);
      return tuner;
    });
    SeedFromHistory(task, store, ids, retry_failed);
    if (prime && !primed)
      return {name, name + " cannot use warm-start records, so it starts cold (" + prime->explanation + ")"};
    return {name, primed ? prime->explanation : ""};
  }
  FlowChoice choice;
  task.StartTuner([&](const ConfigSpace& space) {
    choice = ChooseFlow(store, {task.workload(), kernel_template, ids, &space, retry_failed}, seed,
                        FlowOptions::Parse(options));
    return std::move(choice.made);  // seeded with the task's history and primed
  });
  task.NoteBest(HistoryBest(store, ids));
  return {"auto-" + choice.tuner, choice.explanation};
}

}  // namespace tt
