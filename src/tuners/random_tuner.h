#pragma once
#include <cstdint>

#include "core/rng.h"
#include "tuners/tuner.h"
#include "tuners/unseen_configs.h"

namespace tt {

// Uniform over the valid configs not seen yet: the baseline every other tuner must beat.
class RandomTuner : public Tuner {
 public:
  RandomTuner(const ConfigSpace& space, uint64_t seed);  // `space` must outlive the tuner
  void Seed(const std::vector<Observation>& history) override { Update(history); }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  Rng rng_;
  UnseenConfigs unseen_;
};

}  // namespace tt
