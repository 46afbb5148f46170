#pragma once
// A sketch's starting config on a device with nothing measured to go by: a config that is good
// on typical shapes for the device's class, derived from what the device reports (CPU or GPU,
// native float vector width, whether local memory is on-chip). Much faster than the untiled
// default (UntiledConfig), which computes one output element per work-item: the first config a
// never-tuned workload runs, in tune-network's first round and in the runtime.
#include <optional>
#include <string>

#include "core/device_info.h"
#include "ops/kernel_template.h"
#include "space/config_space.h"

namespace tt {

struct StartingConfig {
  Config config;
  std::string note;          // "cpu start (vec 16)", for the run's explanation
  bool tiles_known = false;  // the device class has tiles of its own for this sketch (else generic rules only)
};

// A valid config of `space` (the kernel's space for `workload` on `device`): the class's
// preferred values adapted to the workload's extents, with the values the space rejects
// taken back one knob at a time; nullopt only when the space has no valid config a seeded
// search finds. Given the workload, values that depend on its shape beyond the space's
// extents are chosen for it too (KernelTemplate::FitToTheShape).
std::optional<StartingConfig> DeviceStartingConfig(const KernelTemplate& kernel, const ConfigSpace& space,
                                                   const DeviceInfo& device, const Workload* workload = nullptr);

}  // namespace tt
