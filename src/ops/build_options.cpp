#include "ops/build_options.h"

namespace tt {

std::string Define(const std::string& name, int64_t value) { return " -D " + name + "=" + std::to_string(value); }

std::string DefineSplit(const std::string& prefix, const KnobValue& split) {
  std::string options;
  for (size_t i = 0; i < split.size(); ++i) options += Define(prefix + std::to_string(i), split[i]);
  return options;
}

LaunchGeometry SplitGeometry2d(const KnobValue& dim0, const KnobValue& dim1) {
  LaunchGeometry g;
  g.dims = 2;
  g.local = {static_cast<size_t>(dim0[2]), static_cast<size_t>(dim1[2]), 1};
  g.global = {static_cast<size_t>(dim0[0] * dim0[2]), static_cast<size_t>(dim1[0] * dim1[2]), 1};
  return g;
}

std::optional<std::string> CheckDeviceLimits(int64_t work_group, int64_t local_bytes, const DeviceLimits& limits) {
  if (static_cast<size_t>(work_group) > limits.max_work_group_size)
    return "work-group size " + std::to_string(work_group) + " exceeds the device limit " +
           std::to_string(limits.max_work_group_size);
  if (static_cast<size_t>(local_bytes) > limits.local_mem_bytes)
    return "local memory " + std::to_string(local_bytes) + " B exceeds the device limit " +
           std::to_string(limits.local_mem_bytes) + " B";
  return std::nullopt;
}

}  // namespace tt
