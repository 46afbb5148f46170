#include "tuners/unseen_configs.h"

#include <string>

#include "core/errors.h"

namespace tt {
namespace {

// Cheap rejection tries before enumerating a small space: most draws succeed long before the
// space is nearly exhausted, and enumeration costs a full pass over the constraints.
constexpr int kTriesBeforeEnumerating = 64;

}  // namespace

bool InSpace(const ConfigSpace& space, const Config& config) {
  if (config.size() != space.num_knobs()) return false;
  for (size_t i = 0; i < config.size(); ++i)
    if (config[i] >= space.knob(i).size()) return false;
  return true;
}

UnseenConfigs::UnseenConfigs(const ConfigSpace& space) : space_(space) {
  // Size() saturates, and then flat indices would collide.
  if (space.Size() == UINT64_MAX)
    throw UserError("config space with " + std::to_string(space.num_knobs()) + " knobs is too large to search");
}

void UnseenConfigs::MarkSeen(const Config& config) {
  if (InSpace(space_, config)) seen_.insert(space_.ToIndex(config));
}

bool UnseenConfigs::Seen(const Config& config) const {
  return InSpace(space_, config) && seen_.count(space_.ToIndex(config)) > 0;
}

bool UnseenConfigs::IsFresh(const Config& config) const {
  return InSpace(space_, config) && !seen_.count(space_.ToIndex(config)) && space_.IsValid(config);
}

std::optional<Config> UnseenConfigs::Random(Rng& rng) {
  if (space_.Size() > kEnumerableSize) return RandomByRejection(rng, kMaxRejections);
  if (!enumerated_) {
    if (auto config = RandomByRejection(rng, kTriesBeforeEnumerating)) return config;
    for (uint64_t i = 0; i < space_.Size(); ++i)
      if (space_.IsValid(space_.FromIndex(i))) pool_.push_back(i);
    enumerated_ = true;
  }
  return RandomFromPool(rng);
}

std::optional<Config> UnseenConfigs::RandomByRejection(Rng& rng, int max_rejections) const {
  for (int i = 0; i < max_rejections; ++i) {
    Config config = space_.Random(rng);
    if (IsFresh(config)) return config;
  }
  return std::nullopt;
}

// Uniform over the pool's unseen entries; a seen entry met on the way is dropped for good, so
// the whole pool is paid for at most once.
std::optional<Config> UnseenConfigs::RandomFromPool(Rng& rng) {
  while (!pool_.empty()) {
    const size_t i = rng.Below(pool_.size());
    if (!seen_.count(pool_[i])) return space_.FromIndex(pool_[i]);
    pool_[i] = pool_.back();
    pool_.pop_back();
  }
  return std::nullopt;
}

}  // namespace tt
