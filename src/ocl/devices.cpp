#include "ocl/devices.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "core/errors.h"
#include "ocl/cl_error.h"
#include "ocl/driver_threads.h"
#include "ocl/icd_vendors.h"

namespace tt::ocl {
namespace {

std::string PlatformString(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  CheckCl(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  CheckCl(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  return text.c_str();  // drops the terminating NUL
}

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  CheckCl(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  CheckCl(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
  return text.c_str();
}

template <typename T>
T DeviceValue(cl_device_id device, cl_device_info what) {
  T value{};
  CheckCl(clGetDeviceInfo(device, what, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

const char* TypeName(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

DeviceInfo Describe(cl_platform_id platform, cl_device_id device) {
  DeviceInfo info;
  info.platform = PlatformString(platform, CL_PLATFORM_NAME);
  info.name = DeviceString(device, CL_DEVICE_NAME);
  info.driver_version = DeviceString(device, CL_DRIVER_VERSION);
  info.type = TypeName(DeviceValue<cl_device_type>(device, CL_DEVICE_TYPE));
  info.compute_units = DeviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.max_work_group_size = DeviceValue<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.local_mem_bytes = DeviceValue<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  info.global_mem_bytes = DeviceValue<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.native_float_width = DeviceValue<cl_uint>(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  return info;
}

std::vector<cl_platform_id> Platforms() {
  EnsureIcdVendors();             // before the ICD loader reads its vendor list, once per process
  PinPoclWorkersWherePossible();  // before POCL starts its threads
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no driver */) return {};
  CheckCl(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(count);
  if (count) CheckCl(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  return platforms;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string DeviceList(const std::vector<Device>& devices) {
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i)
    text += (i ? "; " : " ") + std::to_string(i) + ": " + devices[i].info.name + " (" + devices[i].info.platform + ")";
  return text;
}

}  // namespace

std::vector<Device> EnumerateDevices() {
  std::vector<Device> devices;
  for (cl_platform_id platform : Platforms()) {
    cl_uint count = 0;
    const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND) continue;
    CheckCl(status, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(count);
    CheckCl(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id id : ids) devices.push_back({platform, id, Describe(platform, id)});
  }
  return devices;
}

DeviceInfo DescribeDevice(cl_device_id device) {
  return Describe(DeviceValue<cl_platform_id>(device, CL_DEVICE_PLATFORM), device);
}

Device SelectDevice(std::string_view spec) {
  const std::vector<Device> devices = EnumerateDevices();
  if (devices.empty())
    throw EnvironmentError("no OpenCL device found: is an OpenCL driver (ICD) such as pocl installed?");
  size_t index = 0;
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), index);
  if (!spec.empty() && ec == std::errc() && end == spec.data() + spec.size()) {
    if (index < devices.size()) return devices[index];
  } else if (!spec.empty()) {
    const std::string fragment = Lower(spec);
    for (const Device& d : devices)
      if (Lower(d.info.name).find(fragment) != std::string::npos ||
          Lower(d.info.platform).find(fragment) != std::string::npos)
        return d;
  }
  throw UserError("unknown device '" + std::string(spec) + "': " + std::to_string(devices.size()) +
                  " devices available:" + DeviceList(devices) + " (see `tensortune devices`)");
}

}  // namespace tt::ocl

namespace tt {

std::vector<DeviceInfo> ListDevices() {
  std::vector<DeviceInfo> infos;
  for (const ocl::Device& d : ocl::EnumerateDevices()) infos.push_back(d.info);
  return infos;
}

}  // namespace tt
