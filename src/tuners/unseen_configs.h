#pragma once
// The configs a tuner may still propose: valid ones never seen before (proposed, seeded or
// measured). Every tuner draws from here, so "never measure the same config twice" and
// "stop when the space is exhausted" live in one place.
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "core/rng.h"
#include "space/config_space.h"

namespace tt {

// Whether `config` names a point of `space`: one value index per knob, each in range.
bool InSpace(const ConfigSpace& space, const Config& config);

class UnseenConfigs {
 public:
  // Spaces up to this many points are enumerated once, lazily, so exhaustion is exact.
  static constexpr uint64_t kEnumerableSize = uint64_t{1} << 22;
  // Larger spaces give up after this many rejections in a row and report exhaustion.
  static constexpr int kMaxRejections = 100000;

  // `space` must outlive this object. Throws UserError when the space is too large to index.
  explicit UnseenConfigs(const ConfigSpace& space);

  const ConfigSpace& space() const { return space_; }
  void MarkSeen(const Config& config);
  bool Seen(const Config& config) const;
  size_t num_seen() const { return seen_.size(); }
  // Valid and not seen: what a tuner may propose.
  bool IsFresh(const Config& config) const;
  // A uniformly random fresh config (not marked seen), or nullopt when none is left.
  std::optional<Config> Random(Rng& rng);

 private:
  std::optional<Config> RandomByRejection(Rng& rng, int max_rejections) const;
  std::optional<Config> RandomFromPool(Rng& rng);

  const ConfigSpace& space_;
  std::unordered_set<uint64_t> seen_;  // flat indices
  bool enumerated_ = false;
  std::vector<uint64_t> pool_;  // valid indices, seen ones dropped as draws meet them
};

}  // namespace tt
