#pragma once
// History across devices: the same task (workload, template) recorded on other devices, as a
// warm start for a device that has not run it yet. Devices are compared by what is known of
// them (vendor, type, compute units, work-group limit, local and global memory, the model's
// name), as workloads are by match score; the most similar ones are read and each record is
// handed to the tuner weighted by its device's similarity. A tuner that models the sources
// (bo) refits their weights from its own results, so that a similar-looking device that ranks
// configs differently loses its say.
#include <string>
#include <vector>

#include "core/device_info.h"
#include "history/trial_history.h"
#include "tuners/warm_start.h"

namespace tt {

// What is known of a device for comparing it with another. Vendor and type come from the
// name when the limits are unknown (an imported device).
struct DeviceFeatures {
  std::string vendor;                    // "nvidia", "amd", "intel", "arm", "qualcomm", "apple", or "" when unknown
  std::string type;                      // "cpu", "gpu", ... or "" when unknown
  std::vector<std::string> name_tokens;  // the name's words without digits: "rtx", "a"
  double compute_units = 0, max_work_group_size = 0, local_mem_bytes = 0, global_mem_bytes = 0;  // 0: unknown
};

DeviceFeatures FeaturesOfDevice(const DeviceInfo& device);

// In (0, 1]: 1 for the same device (fingerprint), at most 0.9 for another; each known
// difference lowers it (another
// vendor halves it, another type divides it by 5, each limit by exp(-|ln ratio| / 4), names
// that share no family word by 4/3). Symmetric.
double DeviceSimilarity(const DeviceInfo& a, const DeviceInfo& b);

struct DeviceSource {
  DeviceInfo device;
  TaskIds ids;
  double similarity = 0;
  size_t records = 0;  // trials handed on (ok and failed; transient failures left out)
};

struct CrossDeviceStart {
  WarmStart warm_start;  // transfer samples, `source` = index into `sources`
  std::vector<DeviceSource> sources;
  std::string Describe() const;  // "NVIDIA RTX A4000 (similarity 0.62, 4362 records), ..."
};

struct CrossDeviceOptions {
  // Name fragments or indices among the recorded devices (as `compare --device` takes them);
  // empty: the most similar devices other than `target`.
  std::vector<std::string> devices;
  size_t max_devices = 3;
  double min_similarity = 0.05;
};

// The records of `workload` with `kernel_template` on other devices than `target` (by
// fingerprint). Throws UserError when a device named in `options.devices` has no such record
// or is the target itself.
CrossDeviceStart CrossDeviceWarmStart(const TrialHistory& store, const Workload& workload,
                                      const TemplateRef& kernel_template, const DeviceInfo& target,
                                      const CrossDeviceOptions& options = {});

}  // namespace tt
