#pragma once
// Measures configs on an OpenCL device through a tensortune-worker process, so that a kernel
// that crashes or hangs costs one trial, not the run. This process never touches OpenCL.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "measure/measurer.h"
#include "measure/worker_protocol.h"

namespace tt {

class WorkerProcess;

// One builder per core.
int DefaultBuilders();

struct OpenClMeasurerOptions {
  std::string worker_path{};      // the tensortune-worker program (see DefaultWorkerPath)
  std::string device_spec = "0";  // flat device index or case-insensitive name fragment
  double timeout_s = 10;          // per config, covering compile and run (see TimingTimeoutS)
  // Builder processes that build a batch's configs in parallel before the timing worker times
  // them one by one (nothing builds while a config is timed). 0: the timing worker builds.
  int builders = DefaultBuilders();
  double min_time_s = 0.1;         // timed repeats go on until their sum reaches this ...
  int max_repeats = 1000;          // ... or this many repeats
  double prepare_timeout_s = 600;  // per workload: filling inputs and the CPU reference
  // Called once a config's request is sent, with its index in the batch: to a builder
  // (`building`, on that builder's thread) or to the timing worker. Lets a test act while a
  // given config is in flight instead of guessing when it is.
  std::function<void(size_t index, bool building)> on_sent{};
};

// The time limit for timing one config that was built ahead (its build is cached, so what is
// left is the warm-up, the check and the timed repeats): `timeout_s` while the task has no
// best, else enough for a few launches at kHopelessFactor times the best and a floor for the
// round trips, never more than `timeout_s`. A config cut there is far slower than the best:
// a final result, not a transient one.
inline constexpr double kHopelessFactor = 20;
double TimingTimeoutS(double timeout_s, double best_time_s);
// The time limit for a builder's build and first work-group: `timeout_s` until the task has
// builds to go by, then a few times their median (at least a floor), never more than `timeout_s`.
double BuildTimeoutS(double timeout_s, std::vector<double> build_seconds);

class OpenClMeasurer : public Measurer {
 public:
  // Starts the worker and reads its device. Throws UserError for a device spec that matches
  // nothing, EnvironmentError when the worker or OpenCL is unusable.
  explicit OpenClMeasurer(OpenClMeasurerOptions options);
  ~OpenClMeasurer() override;

  const DeviceInfo& device() const { return device_; }
  DeviceLimits limits() const {
    return {device_.max_work_group_size, device_.local_mem_bytes, device_.native_float_width};
  }

  // Throws nothing: a worker that cannot be restarted ends the batch as kBrokenEnvironment.
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop = nullptr) override;

  // How many configs each builder process built (a crash or a hang answers none), for tests
  // and diagnostics.
  std::vector<int64_t> BuildsPerBuilder() const;

 private:
  struct Builder;
  void StartWorker();
  bool Prepare(const MeasureTask& task, const std::atomic<bool>* stop);  // false: stopped
  WorkerRequest Request(const MeasureTask& task, const Config& config, WorkerRequest::Kind kind) const;
  // Builds the valid configs of a batch on the builders; per config, what its build gave (a
  // failure is its final result), or nullopt when it was not built (invalid, or stopped).
  std::vector<std::optional<MeasureResult>> BuildAhead(const MeasureTask& task, const std::vector<Config>& batch,
                                                       const std::atomic<bool>* stop);
  // `index`: the config's in its batch. nullopt: stopped.
  std::optional<MeasureResult> MeasureValid(const MeasureTask& task, const Config& config, size_t index,
                                            double timeout_s, const std::atomic<bool>* stop);
  MeasureResult WorkerLost();              // the worker died during a config: a crash of it, or from outside
  std::string DropWorker(double grace_s);  // reaps the worker and says how it ended

  OpenClMeasurerOptions options_;
  DeviceInfo device_;
  std::unique_ptr<WorkerProcess> worker_;  // null after a crash or timeout until the next config
  std::string prepared_;                   // the template and workload the worker serves next
  int last_exit_signal_ = 0;               // the signal that ended the last dropped worker, or 0
  std::vector<std::unique_ptr<Builder>> builders_;
  std::map<std::string, std::vector<double>> build_seconds_;  // per template and workload: its ok builds
};

// tensortune-worker next to the running program, or $TENSORTUNE_WORKER when set.
std::string DefaultWorkerPath();

}  // namespace tt
