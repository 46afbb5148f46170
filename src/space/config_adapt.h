#pragma once
// Carrying a config recorded for one workload over to another workload's space of the same
// template (same knob names and kinds): AutoTVM's fallback_split for every split knob (each
// factor, innermost first, becomes the largest divisor of what is left of the new extent that
// does not exceed it; the outermost takes the rest), other knobs kept where the new space has
// the value (a discrete knob otherwise takes its nearest value). The result is then checked
// against the new space's constraints.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "space/config_space.h"

namespace tt {

// Knob values by name, as a config key writes them, independent of any space.
using KnobValues = std::vector<std::pair<std::string, KnobValue>>;

// Parses "tile_x=[1,4,8,16];vec=4" without a space; nullopt when malformed. Fast enough for
// the history searches that read a million keys.
std::optional<KnobValues> ParseConfigKey(std::string_view key);
const KnobValue* FindKnobValue(const KnobValues& values, std::string_view name);

// `recorded` (factors of any extent) as a factorization of `extent` with as many parts.
KnobValue AdaptSplit(const KnobValue& recorded, int64_t extent);

struct AdaptedConfig {
  Config config;
  std::optional<std::string> why_invalid;  // from ConfigSpace::WhyInvalid; nullopt when valid
};

// nullopt when `recorded` lacks one of the space's knobs or a split has another length
// (another template or knob schema).
std::optional<AdaptedConfig> AdaptConfig(const ConfigSpace& space, const KnobValues& recorded);

// A valid config one knob away from `config` (an adapted config the new shape rejects: a
// work-group size with too few work-items, a tile past the extent): the knobs from the last
// to the first, each knob's values nearest to the current one first. nullopt when no single
// change makes it valid.
std::optional<Config> NearestValidConfig(const ConfigSpace& space, const Config& config);

}  // namespace tt
