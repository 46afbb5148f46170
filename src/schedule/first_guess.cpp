#include "schedule/first_guess.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "ops/starting_config.h"
#include "ranking/transfer.h"
#include "tuners/warm_configs.h"
#include "warmstart/cross_device.h"

namespace tt {
namespace {

// The fastest config of `workload` recorded on the most similar other device that is valid
// here (another device's limits can rule its best out).
std::optional<FirstGuess> OtherDeviceBest(const TrialHistory& history, const KernelTemplate& kernel,
                                          const TemplateRef& ref, const Workload& workload, const ConfigSpace& space,
                                          const DeviceInfo& device) {
  CrossDeviceOptions most_similar;
  most_similar.max_devices = 1;
  const CrossDeviceStart cross = CrossDeviceWarmStart(history, workload, ref, device, most_similar);
  if (cross.sources.empty()) return std::nullopt;
  std::vector<Config> fastest = BestWarmConfigs(space, cross.warm_start, 1);  // one source: by GFLOPS
  if (fastest.empty()) return std::nullopt;
  const DeviceSource& source = cross.sources.front();
  std::string note = fmt::format("the fastest of this workload's {} records on {} (similarity {:.2f})", source.records,
                                 source.device.name, source.similarity);
  // Values that depend on this device's class (a GPU's config on a CPU).
  if (const std::string fitted = kernel.FitToTheShape(workload, space, device, fastest.front()); !fitted.empty())
    note += ", " + fitted;
  return FirstGuess{std::move(fastest.front()), std::move(note)};
}

}  // namespace

std::vector<FirstGuess> FirstGuesses(const TrialHistory& history, const KernelTemplate& kernel, const TemplateRef& ref,
                                     int64_t device_id, const Workload& workload, const ConfigSpace& space,
                                     const DeviceInfo& device, size_t transfers, bool other_devices) {
  std::vector<FirstGuess> guesses;
  const HistoryScope scope = TransferScope(history, ref.name, space, ref.source_hash, device_id);
  const auto known = [&](const Config& config) {
    return std::any_of(guesses.begin(), guesses.end(), [&](const FirstGuess& g) { return g.config == config; });
  };
  for (TransferredConfig& t : TransferConfigs(history, scope, workload, space, transfers)) {
    // The source's shape-bound values (the input transform, columns per work-item) fitted to this shape.
    const std::string fitted = kernel.FitToTheShape(workload, space, device, t.config);
    if (known(t.config)) continue;
    guesses.push_back(
        {std::move(t.config), "transferred from " + DescribeTransfer(t) + (fitted.empty() ? "" : ", " + fitted)});
  }
  // After the best transfer: a first round that measures two guesses measures both.
  auto next = guesses.begin() + (guesses.empty() ? 0 : 1);
  if (other_devices)
    if (auto best = OtherDeviceBest(history, kernel, ref, workload, space, device); best && !known(best->config))
      next = guesses.insert(next, std::move(*best)) + 1;
  if (auto start = DeviceStartingConfig(kernel, space, device, &workload))
    if (!known(start->config)) guesses.insert(next, {std::move(start->config), start->note});
  return guesses;
}

}  // namespace tt
