#include "ops/kernel_template.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace tt {
namespace embedded {
extern const std::pair<std::string_view, std::string_view> kernels[];
extern const std::size_t kernels_count;
}  // namespace embedded

std::string_view KernelSource(std::string_view file) {
  for (size_t i = 0; i < embedded::kernels_count; ++i)
    if (embedded::kernels[i].first == file) return embedded::kernels[i].second;
  throw std::logic_error("no embedded kernel source '" + std::string(file) + "'");
}

std::string JoinKernelSources(std::initializer_list<std::string_view> files) {
  std::string text;
  for (std::string_view file : files) text += KernelSource(file);
  return text;
}

size_t ElementCount(std::initializer_list<int64_t> extents) {
  size_t product = 1;
  for (const int64_t extent : extents)
    if (extent < 0 || __builtin_mul_overflow(product, static_cast<size_t>(extent), &product)) return SIZE_MAX;
  return product;
}

std::vector<int64_t> FloatVectorWidths(const DeviceLimits& limits, int64_t from) {
  const int64_t widest = limits.native_float_width == 0 ? 16 : std::clamp<int64_t>(limits.native_float_width, from, 16);
  std::vector<int64_t> widths;
  for (int64_t w = from; w <= widest; w *= 2) widths.push_back(w);
  return widths;
}

DeviceLimits LimitsOf(const DeviceInfo& device) {
  DeviceLimits limits = kNoDeviceLimits;
  if (device.max_work_group_size > 0) limits.max_work_group_size = device.max_work_group_size;
  if (device.local_mem_bytes > 0) limits.local_mem_bytes = device.local_mem_bytes;
  limits.native_float_width = device.native_float_width;
  return limits;
}

std::string KernelTemplate::SourceHash() const { return TextHash(source()); }

std::string TextHash(std::string_view text) {
  // FNV-1a: enough to tell template revisions apart in the history.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) h = (h ^ ch) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace tt
