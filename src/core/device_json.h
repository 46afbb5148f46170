#pragma once
// One JSON codec for a device: the worker's hello (measure/worker_protocol) and a kernel pack's
// manifest (runtime/kernel_pack) write and read a DeviceInfo through it, so the two never
// disagree on a field. `imported` is not written (it describes a history record, not a device).
#include <nlohmann/json_fwd.hpp>

#include "core/device_info.h"

namespace tt {

nlohmann::json DeviceToJson(const DeviceInfo& device);
// platform, name, driver_version, type, max_work_group_size and local_mem_bytes are required;
// compute_units, global_mem_bytes and native_float_width are 0 when absent (older workers and
// packs did not write them all). Throws nlohmann::json's exceptions for a missing or mistyped
// field.
DeviceInfo DeviceFromJson(const nlohmann::json& j);

}  // namespace tt
