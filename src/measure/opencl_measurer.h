#pragma once
// Measures configs on an OpenCL device through a tensortune-worker process, so that a kernel
// that crashes or hangs costs one trial, not the run. This process never touches OpenCL.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "measure/measurer.h"

namespace tt {

class WorkerProcess;

struct OpenClMeasurerOptions {
  std::string worker_path;         // the tensortune-worker program (see DefaultWorkerPath)
  std::string device_spec = "0";   // flat device index or case-insensitive name fragment
  double timeout_s = 10;           // per config, covering compile and run
  double min_time_s = 0.1;         // timed repeats go on until their sum reaches this ...
  int max_repeats = 1000;          // ... or this many repeats
  double prepare_timeout_s = 600;  // per workload: filling inputs and the CPU reference
};

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

 private:
  void StartWorker();
  bool Prepare(const MeasureTask& task, const std::atomic<bool>* stop);  // false: stopped
  std::optional<MeasureResult> MeasureValid(const MeasureTask& task, const Config& config,
                                            const std::atomic<bool>* stop);  // nullopt: stopped
  MeasureResult WorkerLost();  // the worker died during a config: a crash of it, or from outside
  std::string DropWorker(double grace_s);  // reaps the worker and says how it ended

  OpenClMeasurerOptions options_;
  DeviceInfo device_;
  std::unique_ptr<WorkerProcess> worker_;  // null after a crash or timeout until the next config
  std::string prepared_;                   // the template and workload the worker serves next
  int last_exit_signal_ = 0;               // the signal that ended the last dropped worker, or 0
};

// tensortune-worker next to the running program, or $TENSORTUNE_WORKER when set.
std::string DefaultWorkerPath();

}  // namespace tt
