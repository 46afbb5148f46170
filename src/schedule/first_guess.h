#pragma once
// What tune-network's first round measures for a task that has nothing measured of its own:
// its best guess instead of its template's untuned default. The configs of the most similar
// workloads measured on this device (this run's earlier tasks are recorded as they finish, so
// they count), adapted to the task's space and shape; the fastest config of this workload on
// the most similar other device; then the device-class starting config.
#include <cstddef>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "history/trial_history.h"
#include "ops/kernel_template.h"

namespace tt {

struct FirstGuess {
  Config config;
  std::string source;  // "transferred from conv2d ... (match 0.83, ...)", "cpu start (vector width 16)"
};

// Distinct, every one valid in `space`: the best of at most `transfers` transferred configs
// (ranking/transfer.h: the same transfer as `best`); with `other_devices`, the fastest config
// recorded for this very workload on the most similar other device (warmstart/cross_device.h);
// then the starting config for `device` (ops/starting_config.h) when it is not among them, then
// the other transfers. A history recorded with older kernels or on other workloads can
// transfer worse than the device's start, so a first round that can afford two guesses
// measures both. Empty only for a space without a valid config.
std::vector<FirstGuess> FirstGuesses(const TrialHistory& history, const KernelTemplate& kernel, const TemplateRef& ref,
                                     int64_t device_id, const Workload& workload, const ConfigSpace& space,
                                     const DeviceInfo& device, size_t transfers, bool other_devices);

}  // namespace tt
