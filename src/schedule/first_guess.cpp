#include "schedule/first_guess.h"

#include <algorithm>

#include "ops/starting_config.h"
#include "ranking/transfer.h"

namespace tt {

std::vector<FirstGuess> FirstGuesses(const TrialHistory& history, const KernelTemplate& kernel, const TemplateRef& ref,
                                     int64_t device_id, const Workload& workload, const ConfigSpace& space,
                                     const DeviceInfo& device, size_t transfers) {
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
  if (auto start = DeviceStartingConfig(kernel, space, device, &workload)) {
    // Second, after the best transfer: a first round that measures two guesses measures both.
    if (!known(start->config))
      guesses.insert(guesses.begin() + (guesses.empty() ? 0 : 1), {std::move(start->config), start->note});
  }
  return guesses;
}

}  // namespace tt
