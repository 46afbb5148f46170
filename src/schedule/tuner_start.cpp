#include "schedule/tuner_start.h"

#include <algorithm>

#include "schedule/run_recorder.h"
#include "tuners/tuner_factory.h"
#include "warmstart/cross_device.h"
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

std::optional<TunerPrime> NetworkTaskPrime(const TrialHistory& store, const FlowTask& task, const DeviceInfo& device,
                                           bool similar_workloads, bool other_devices) {
  TunerPrime prime;
  int next_source = 0;
  if (similar_workloads) {
    SimilarWorkloadsStart similar = SimilarWorkloadsWarmStart(store, task);
    if (similar.workloads > 0) {
      prime = {std::move(similar.warm_start), "warm start from " + similar.Describe()};
      for (const TransferSample& s : prime.warm_start.transfer) next_source = std::max(next_source, s.source + 1);
    }
  }
  if (other_devices) {
    CrossDeviceStart cross = CrossDeviceWarmStart(store, task.workload, task.kernel_template, device);
    if (!cross.sources.empty()) {
      if (prime.warm_start.workload_features.empty())
        prime.warm_start.workload_features = cross.warm_start.workload_features;
      for (TransferSample& s : cross.warm_start.transfer) {
        s.source += next_source;  // a scale of its own
        prime.warm_start.transfer.push_back(std::move(s));
      }
      prime.explanation += std::string(prime.explanation.empty() ? "warm start from " : " and from ") +
                           "other devices' records of this task: " + cross.Describe();
    }
  }
  if (prime.explanation.empty()) return std::nullopt;
  return prime;
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
