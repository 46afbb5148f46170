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
  for (TransferredConfig& t : TransferConfigs(history, scope, workload, space, transfers))
    guesses.push_back({std::move(t.config), "transferred from " + DescribeTransfer(t)});
  if (auto start = DeviceStartingConfig(kernel, space, device, &workload)) {
    const bool known =
        std::any_of(guesses.begin(), guesses.end(), [&](const FirstGuess& g) { return g.config == start->config; });
    // Second, after the best transfer: a first round that measures two guesses measures both.
    if (!known) guesses.insert(guesses.begin() + (guesses.empty() ? 0 : 1), {std::move(start->config), start->note});
  }
  return guesses;
}

}  // namespace tt
