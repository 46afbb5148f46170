#pragma once
// What the runtime's files (and the CLI's export-kernels and run-network) share beyond the
// public headers: conversions between the public types and tensortune's own, how a config
// becomes a KernelSpec, the choice ladder, and writing kernel packs.
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/workload.h"
#include "ops/kernel_template.h"
#include "ops/launch_plan.h"
#include "tensortune/runtime.h"

namespace tt::runtime {

// Parses a public workload; throws tensortune::Error (kInvalidArgument).
Workload ToWorkload(const tensortune::Workload& workload);
tensortune::Workload ToPublic(const Workload& workload);
DeviceInfo ToDeviceInfo(const tensortune::DeviceDescription& device);
tensortune::DeviceDescription ToDescription(const DeviceInfo& device);
tensortune::Layout ToPublic(TensorLayout layout);
TensorLayout ToInternal(tensortune::Layout layout);

// 0 most trusted (exact) ... 3 least (default); an override ranks with exact.
int Rank(tensortune::Origin origin);
// One line: what was chosen (origin, sketch, where it was measured).
std::string Describe(const tensortune::Choice& choice);

// The spec of a config valid in `space` (the template's space of `workload` on the device).
tensortune::KernelSpec SpecFor(const KernelTemplate& kernel, const Workload& workload, const ConfigSpace& space,
                               const Config& config, tensortune::Choice choice);
// The device-side conversion between NCHW and NCHW16c (either way), arguments {in, out}.
tensortune::KernelSpec ConversionSpec(tensortune::Layout from, tensortune::Layout to, const std::vector<int64_t>& dims);
// Structural checks of a spec (argument indices, scratch, work-group size against `device`);
// throws tensortune::Error (`code`) naming the problem.
void CheckSpec(const tensortune::KernelSpec& spec, const DeviceInfo& device, tensortune::ErrorCode code);

// The choice ladders behind Runtime::Prepare and Choose.
tensortune::KernelSpec ChooseFromCandidates(const tensortune::Workload& workload, const tensortune::Candidates& found,
                                            const DeviceInfo& device, const tensortune::PrepareOptions& options);
tensortune::KernelSpec ChooseFromPack(const tensortune::Workload& workload, const tensortune::KernelPack& pack,
                                      const DeviceInfo& device, const tensortune::PrepareOptions& options);
// What a workload with nothing recorded runs: the device class's starting config of its first
// applicable sketch (what tune-network's first round measures), or, asked for explicitly, the
// template's untuned default (every split untiled).
enum class DefaultKind { kStarting, kUntuned };
tensortune::KernelSpec DefaultSpec(const Workload& workload, const DeviceInfo& device,
                                   const std::string& kernel_template, const std::string& why,
                                   DefaultKind kind = DefaultKind::kStarting);
tensortune::KernelSpec OverrideSpec(const Workload& workload, const DeviceInfo& device,
                                    const std::string& kernel_template, const std::string& config_key);

// A kernel pack: the manifest and one source file per task, written to `directory` (which
// must not exist or be empty) through a temporary directory beside it, so that it is complete
// or absent. Throws UserError for an unusable directory.
struct PackTask {
  tensortune::KernelSpec spec;
  std::vector<std::string> layers;  // the network's layers it stands for
  int64_t weight = 1;
};
void WritePack(const std::string& directory, const tensortune::DeviceDescription& device, const std::string& network,
               int64_t batch, const std::vector<PackTask>& tasks);

constexpr const char* kPackFormat = "tensortune-kernel-pack";
constexpr int kPackVersion = 1;
constexpr const char* kManifestName = "manifest.json";

}  // namespace tt::runtime
