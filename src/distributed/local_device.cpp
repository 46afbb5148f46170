#include "distributed/local_device.h"

#include <algorithm>
#include <cctype>

#include "core/errors.h"

namespace tt {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

bool NamesLocalDevice(const std::string& spec) { return spec == "local" || spec.rfind("local:", 0) == 0; }

std::string ResolveLocalDevice(const std::string& spec, int local_index, const std::vector<DeviceInfo>& devices) {
  if (!NamesLocalDevice(spec)) return spec;
  const std::string fragment = spec == "local" ? "" : Lower(spec.substr(6));
  int seen = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    const bool matches = Lower(devices[i].name).find(fragment) != std::string::npos ||
                         Lower(devices[i].platform).find(fragment) != std::string::npos;
    if (matches && seen++ == local_index) return std::to_string(i);
  }
  throw UserError("--device " + spec + ": this host's worker rank " + std::to_string(local_index + 1) +
                  " needs a device of its own, but the host has " + std::to_string(seen) + " such device" +
                  (seen == 1 ? "" : "s") + " (`tensortune devices` lists them; start fewer ranks per host)");
}

}  // namespace tt
