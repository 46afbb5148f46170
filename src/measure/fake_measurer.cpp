#include "measure/fake_measurer.h"

namespace tt {

MeasuredBatch FakeMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                    const std::atomic<bool>*) {
  const double flops = task.kernel ? task.kernel->Flops(task.workload) : 1e9;
  MeasuredBatch measured;
  auto& results = measured.results;
  for (const Config& config : batch) {
    if (auto why = task.space->WhyInvalid(config)) {
      results.push_back(MeasureResult::Failure(MeasureStatus::kInvalidConfig, std::move(*why)));
      continue;
    }
    ++measured_;
    const double gflops = gflops_(task, config);
    if (gflops <= 0) {
      results.push_back(MeasureResult::Failure(MeasureStatus::kRuntimeError, "fake failure"));
      continue;
    }
    const double t = flops / (gflops * 1e9);
    results.push_back(MeasureResult::Success({t, t, t}, flops, 0));
  }
  return measured;
}

}  // namespace tt
