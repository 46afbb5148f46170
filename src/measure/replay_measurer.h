#pragma once
// Answers from what a history recorded, so a tuner can be run many times in seconds with no
// device. A config that was never recorded counts as invalid.
#include <string>
#include <unordered_map>

#include "measure/measurer.h"

namespace tt {

class ReplayMeasurer : public Measurer {
 public:
  // Recorded results by canonical config key (ConfigSpace::Key).
  explicit ReplayMeasurer(std::unordered_map<std::string, MeasureResult> recorded)
      : recorded_(std::move(recorded)) {}

  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop = nullptr) override;

 private:
  std::unordered_map<std::string, MeasureResult> recorded_;
};

}  // namespace tt
