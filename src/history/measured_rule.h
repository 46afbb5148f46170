#pragma once
// Which records of a task count as measured (TrialHistory::MeasuredConfigs): the one rule that
// every store keeps, fed the task's records oldest first. Every final record counts; of transient
// failures only a config's second timeout does (a config that timed out in two runs is taken as
// hanging), and none when the caller retries transient failures.
#include <string>
#include <unordered_map>

#include "core/measure_result.h"

namespace tt {

class MeasuredRule {
 public:
  static constexpr int kTimeoutsThatMeanHanging = 2;

  explicit MeasuredRule(bool retry_transient) : retry_transient_(retry_transient) {}

  bool Counts(const std::string& config_key, MeasureStatus status, bool transient) {
    if (!transient) return true;
    if (retry_transient_ || status != MeasureStatus::kTimeout) return false;
    return ++timeouts_[config_key] == kTimeoutsThatMeanHanging;
  }

 private:
  bool retry_transient_;
  std::unordered_map<std::string, int> timeouts_;
};

}  // namespace tt
