#pragma once
// A task's tuner, made and seeded from the task's history: the tuner asked for, or for "auto"
// the history flow warmstart/ chooses (exact history, guided GA from similar workloads, or a
// transfer-learned cost model).
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "history/trial_history.h"
#include "schedule/tuning_task.h"
#include "tuners/warm_start.h"
#include "warmstart/flow.h"

namespace tt {

struct TunerStart {
  std::string tuner;        // as recorded with the run: the name, or "auto-<flow's tuner>"
  std::string explanation;  // "auto": which flow and why, one line; else empty
};

// Throws UserError for an unknown tuner or a bad option; call it before anything is written.
void CheckTunerChoice(const std::string& name, const ConfigSpace& probe, uint64_t seed,
                      const std::map<std::string, std::string>& options);

// Records of other devices or other workloads that prime a tuner other than auto (auto reads
// the history its own way), and what they are, for the run's explanation.
struct TunerPrime {
  WarmStart warm_start;
  std::string explanation;
};

// What tune-network primes a task's tuner with (for a tuner other than auto): with
// `similar_workloads`, similar workloads' records on this device (warmstart/flow.h); with
// `other_devices`, this task's records on the most similar other devices
// (warmstart/cross_device.h); each source keeps its own scale. nullopt when neither has any.
std::optional<TunerPrime> NetworkTaskPrime(const TrialHistory& store, const FlowTask& task, const DeviceInfo& device,
                                           bool similar_workloads, bool other_devices);

// `prime` (may be null) primes a tuner other than auto.
TunerStart StartTaskTuner(TuningTask& task, const TrialHistory& store, const TaskIds& ids,
                          const TemplateRef& kernel_template, const std::string& name, uint64_t seed,
                          const std::map<std::string, std::string>& options, bool retry_failed,
                          const TunerPrime* prime = nullptr);

}  // namespace tt
