#pragma once
// A Measurer turns a batch of configs into results. The OpenCL measurer builds, times and
// verifies on a device; the replay measurer answers from history; the fake one from a formula.
#include <atomic>
#include <string>
#include <vector>

#include "core/measure_result.h"
#include "core/workload.h"
#include "ops/kernel_template.h"
#include "space/config_space.h"

namespace tt {

struct MeasureTask {
  const KernelTemplate* kernel = nullptr;
  Workload workload;
  const ConfigSpace* space = nullptr;
  double best_time_s = 0;  // the task's best time so far (0: none): slower configs may be timed less
};

// What became of a batch: one result per config measured, in batch order. A batch ends early
// only when a stop was asked for (the config in flight is abandoned, not recorded) or when the
// environment broke (the worker cannot be restarted); what was finished before is kept.
struct MeasuredBatch {
  enum class End { kComplete, kStopped, kBrokenEnvironment };
  std::vector<MeasureResult> results;
  End end = End::kComplete;
  std::string error;  // kBrokenEnvironment: what broke

  bool complete() const { return end == End::kComplete; }
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Never throws for a bad config: that is a status. A stop asked for through `stop` (may be
  // null) ends the batch within a fraction of a second.
  virtual MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                const std::atomic<bool>* stop = nullptr) = 0;
};

}  // namespace tt
