#pragma once
#include <cstdint>

#include "tuners/tuner.h"
#include "tuners/unseen_configs.h"

namespace tt {

// Every valid config in flat index order (last knob fastest), skipping seen ones.
class GridTuner : public Tuner {
 public:
  explicit GridTuner(const ConfigSpace& space);  // `space` must outlive the tuner
  void Seed(const std::vector<Observation>& history) override { Update(history); }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  UnseenConfigs unseen_;
  uint64_t next_index_ = 0;
};

}  // namespace tt
