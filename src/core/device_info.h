#pragma once
#include <cstddef>
#include <string>

namespace tt {

// What tuning needs to know of an OpenCL device; filled by ocl/, used everywhere else.
struct DeviceInfo {
  std::string platform;
  std::string name;
  std::string driver_version;
  std::string type;  // "cpu", "gpu", "accelerator", "other"
  unsigned compute_units = 0;
  size_t max_work_group_size = 0;
  size_t local_mem_bytes = 0;
  size_t global_mem_bytes = 0;
  // Known only from another tool's records (an AutoTVM target, a Kernel Tuner GPU): the limits
  // above are unknown (0) and its trials are never this machine's history.
  bool imported = false;
  // CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: floats per SIMD register (AVX-512: 16); 0 when not
  // known (a device read back from a history database, which does not store it).
  unsigned native_float_width = 0;

  // Identifies a device across runs: the same hardware through the same driver, with as many
  // compute units (POCL with another thread count, a GPU partition: the fastest configs
  // differ). An imported device's count is unknown and not part of it.
  std::string Fingerprint() const {
    return platform + " | " + name + " | " + driver_version +
           (compute_units > 0 ? " | compute units: " + std::to_string(compute_units) : "");
  }
};

}  // namespace tt
