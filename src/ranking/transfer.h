#pragma once
// A config for a workload carried over from the most similar measured workloads of the same
// operator and template on a device: the records FindCandidates ranks first (match score,
// tile utilisation and speed), each adapted to the workload's space (AdaptConfig), kept when
// valid there. One transfer for `best`, the runtime's history fallback and tune-network's
// first round.
#include <cstdint>
#include <string>
#include <vector>

#include "history/trial_history.h"
#include "ranking/candidates.h"
#include "space/config_space.h"

namespace tt {

struct TransferredConfig {
  Config config;
  RankedRecord source;  // the record it was adapted from
};

// The template's records on `scope` (versions with the space's knob schema, one device)
// adapted to `space` (the space of `workload`; where that is invalid there, the nearest valid
// config, NearestValidConfig): distinct valid configs, best-ranked first, at most `limit`.
// Empty when nothing similar was measured.
std::vector<TransferredConfig> TransferConfigs(const TrialHistory& history, const HistoryScope& scope,
                                               const Workload& workload, const ConfigSpace& space, size_t limit);

// The scope TransferConfigs reads: the template's versions with this space's knobs (any source
// hash) on `device_id`.
HistoryScope TransferScope(const TrialHistory& history, const std::string& template_name, const ConfigSpace& space,
                           const std::string& source_hash, int64_t device_id);

// "conv2d n=1,ci=64,... (match 0.83, 120.4 GFLOPS there)".
std::string DescribeTransfer(const TransferredConfig& transferred);

}  // namespace tt
