#pragma once
// Devices across all platforms, numbered by one flat index (platform order, then device order).
#include <CL/cl.h>

#include <string_view>
#include <vector>

#include "core/device_info.h"

namespace tt {

std::vector<DeviceInfo> ListDevices();  // empty when no OpenCL platform is installed

}  // namespace tt

namespace tt::ocl {

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  DeviceInfo info;
};

std::vector<Device> EnumerateDevices();  // in ListDevices() order
// A device handed over by a program (its platform read from the device). Throws EnvironmentError.
DeviceInfo DescribeDevice(cl_device_id device);

// `spec` is a flat index ("0") or a case-insensitive fragment of the device or platform name
// (first match wins). Throws UserError listing the devices when nothing matches, and
// EnvironmentError when there are no devices at all.
Device SelectDevice(std::string_view spec);

}  // namespace tt::ocl
