#include "ops/build_options.h"

namespace tt {

std::string Define(const std::string& name, int64_t value) { return " -D " + name + "=" + std::to_string(value); }

std::string DefineSplit(const std::string& prefix, const KnobValue& split) {
  std::string options;
  for (size_t i = 0; i < split.size(); ++i) options += Define(prefix + std::to_string(i), split[i]);
  return options;
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
