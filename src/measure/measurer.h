#pragma once
// A Measurer turns a batch of configs into results. The OpenCL measurer builds, times and
// verifies on a device; the replay measurer answers from history; the fake one from a formula.
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
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // One result per config, in order. Never throws for a bad config: that is a status.
  virtual std::vector<MeasureResult> Measure(const MeasureTask& task, const std::vector<Config>& batch) = 0;
};

}  // namespace tt
