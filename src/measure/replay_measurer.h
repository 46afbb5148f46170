#pragma once
// Answers from what a history recorded, so a tuner can be run many times in seconds with no
// device. Tuners see the whole space, as in a real run; a config that was never recorded is
// answered like one that failed to build (compile_error), so a tuner cannot tell replay from
// a device and a sampled recording costs it trials, as a device's failures would.
#include <string>
#include <unordered_map>

#include "measure/measurer.h"

namespace tt {

class ReplayMeasurer : public Measurer {
 public:
  // Recorded results by canonical config key (ConfigSpace::Key).
  explicit ReplayMeasurer(std::unordered_map<std::string, MeasureResult> recorded) : recorded_(std::move(recorded)) {}

  static constexpr const char* kNotRecorded = "not recorded: replay answers it like a config that failed to build";

  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop = nullptr) override;

 private:
  std::unordered_map<std::string, MeasureResult> recorded_;
};

}  // namespace tt
