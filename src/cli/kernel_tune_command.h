#pragma once
// A user's OpenCL kernel tuned Kernel Tuner's way (ops/user_kernel_template.h), every trial
// recorded in the history: `tensortune tune --kernel SPEC.json` and the Python module's
// tune_kernel both come here. The same kernel tuned again resumes: what is recorded is never
// measured again, and the results hold every trial of the task.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/progress.h"
#include "core/device_info.h"
#include "core/measure_result.h"
#include "measure/opencl_measurer.h"
#include "ops/user_kernel_spec.h"
#include "schedule/task_tuner.h"

namespace tt {

struct KernelTuneOptions {
  std::string db = "history.db";
  std::string device = "0";
  std::string worker_path;  // empty: DefaultWorkerPath()
  double timeout_s = 10;
  int builders = DefaultBuilders();
  // Configs to measure: at most this many, and never more than the space's valid configs
  // (when they can be counted). 0: every valid config.
  int64_t trials = 0;
  TaskTuneOptions tuning;  // tuner, seed, batch size, time limit (its trials are set from `trials`)
};

struct KernelTrial {
  std::vector<size_t> value_indices;  // per tunable parameter: the index of its value in tune_params
  std::string config_key;
  MeasureResult result;
  int64_t run_id = 0;
};

struct KernelTuneOutcome {
  int64_t run_id = 0;
  DeviceInfo device;
  std::string workload;       // kernel_tuner:p0=...
  std::string template_hash;  // the kernel's identity in the history
  int64_t measured = 0;       // in this run
  bool interrupted = false;
  bool exhausted = false;
  int64_t valid_configs = -1;       // -1: too many to count
  std::string warm_start;           // --tuner auto: the flow taken and why (other problem sizes' records)
  std::vector<KernelTrial> trials;  // every trial of this kernel, problem size and device, oldest first
};

// Checks the spec and options, measures and records. `interrupt` (may be null) stops the run
// keeping what was measured; `on_batch` (may be null) is told the trials measured so far.
// Throws UserError for bad input (nothing written), EnvironmentError when the device breaks.
KernelTuneOutcome TuneUserKernel(const UserKernelSpec& spec, const KernelTuneOptions& options,
                                 const std::atomic<bool>* interrupt,
                                 const std::function<void(int64_t measured, int64_t total)>& on_batch = {});

// `tensortune tune --kernel SPEC.json`: returns the exit code (kInterruptedExitCode when interrupted).
int RunKernelTune(const std::string& spec_path, const KernelTuneOptions& options, bool json, ProgressMode progress,
                  std::ostream& out);

}  // namespace tt
