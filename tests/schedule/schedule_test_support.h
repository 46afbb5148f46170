#pragma once
// Shared by the engine tests: a history in a scratch directory, tasks over real template
// spaces, and measurers that stop or break after a number of configs.
#include <atomic>
#include <memory>

#include "history/history_test_support.h"
#include "measure/fake_measurer.h"
#include "networks/network.h"
#include "ops/kernel_template.h"
#include "ops/selftest_template.h"
#include "schedule/run_recorder.h"
#include "schedule/tuning_task.h"
#include "tuners/tuner_factory.h"

namespace tt::testing {

inline const DeviceLimits kLimits{256, 32768};

// GFLOPS from the config's flat index: deterministic, different per config.
inline double IndexGflops(const ConfigSpace& space, const Config& config) {
  return 1.0 + static_cast<double>(space.ToIndex(config) % 97);
}

// Networks are parsed on first use, not during static initialisation: parsing builds the
// operator registry, which reads the templates' shape tables, static objects of other files.
// Every task has more than 8 rows: one sketch each (gemm_rows would be a second one).
inline const Network& Tiny() {
  static const Network tiny = ParseNetwork(R"({"name": "tiny", "layers": [
  {"name": "a", "op": "gemm", "shape": "{batch*16},16,16", "repeat": 2},
  {"name": "b", "op": "gemm", "shape": "{batch*12},32,16"},
  {"name": "a2", "op": "gemm", "shape": "{batch*16},16,16"}]})",
                                           "tiny");
  return tiny;
}

inline std::unique_ptr<TuningTask> MakeTask(const KernelTemplate& kernel, const Workload& workload,
                                            const std::string& tuner = "random", uint64_t seed = 1) {
  return std::make_unique<TuningTask>(&kernel, workload, kernel.Space(workload, kLimits),
                                      [&](const ConfigSpace& s) { return MakeTuner(tuner, s, seed, {}); });
}

inline TaskIds Ensure(SqliteHistoryStore& store, const KernelTemplate& kernel, const Workload& workload) {
  return store.EnsureTask(workload, kernel.Flops(workload), TemplateRefOf(kernel, kernel.Space(workload, kLimits)),
                          CpuDevice());
}

// Measures like FakeMeasurer; after `limit` configs it ends the batch as `how` (and, for a
// stop, raises the flag it was given, as Ctrl-C would).
class FailingMeasurer : public Measurer {
 public:
  FailingMeasurer(size_t limit, MeasuredBatch::End how) : limit_(limit), how_(how) {}
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop) override {
    MeasuredBatch measured;
    for (const Config& c : batch) {
      if (measured_ == limit_) {
        measured.end = how_;
        if (how_ == MeasuredBatch::End::kBrokenEnvironment) measured.error = "the worker program is gone";
        if (how_ == MeasuredBatch::End::kStopped && stop) const_cast<std::atomic<bool>*>(stop)->store(true);
        break;
      }
      ++measured_;
      measured.results.push_back(fake_.Measure(task, {c}).results.front());
    }
    return measured;
  }

 private:
  size_t limit_;
  MeasuredBatch::End how_;
  size_t measured_ = 0;
  FakeMeasurer fake_{IndexGflops};
};

}  // namespace tt::testing
