#pragma once
// Answers from a formula instead of a device, for fast tests of tuners and the run loop.
#include <cstddef>
#include <functional>

#include "measure/measurer.h"

namespace tt {

class FakeMeasurer : public Measurer {
 public:
  // GFLOPS of a valid config; a value <= 0 makes that config a runtime_error.
  using GflopsFunction = std::function<double(const ConfigSpace&, const Config&)>;

  // The same, where the answer depends on the task too (its template, its workload).
  using TaskGflopsFunction = std::function<double(const MeasureTask&, const Config&)>;

  explicit FakeMeasurer(GflopsFunction gflops)
      : gflops_([gflops = std::move(gflops)](const MeasureTask& t, const Config& c) { return gflops(*t.space, c); }) {}
  explicit FakeMeasurer(TaskGflopsFunction gflops) : gflops_(std::move(gflops)) {}

  // Times follow from the GFLOPS and the task's FLOPs (1 GFLOP when the task has no kernel).
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop = nullptr) override;
  size_t measured() const { return measured_; }  // valid configs answered so far

 private:
  TaskGflopsFunction gflops_;
  size_t measured_ = 0;
};

}  // namespace tt
