#pragma once
// `tensortune tune`: one workload, one template, one tuner, every batch recorded in the
// history database as soon as it is measured.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "measure/opencl_measurer.h"
#include "schedule/task_tuner.h"

namespace tt {

// tune and sweep: the workload, where it is measured and recorded, and the warm start from
// other devices; what the run does is `tuning`, checked by the engine's TaskTuneOptions::Check.
struct TuneOptions {
  std::string op;
  std::string shape;
  std::vector<std::string> shape_flags;  // 0/1 workload dimensions switched on, e.g. transpose_a
  std::vector<std::string> pins;         // "knob=value": knobs held at one value
  std::string kernel_template;           // empty: the operator's first applicable template
  // Other devices' records of this task to start from (tuners other than auto): "auto" the
  // most similar ones, "none", or device name fragments / indices.
  std::vector<std::string> warm_from{"auto"};
  std::string kernel_spec;  // --kernel SPEC.json: a user's kernel instead of --op and --shape
  std::string db = "history.db";
  std::string device = "0";
  double timeout_s = 10;
  int builders = DefaultBuilders();  // see OpenClMeasurerOptions
  double min_time_s = 0.1;
  int64_t sweep_limit = 0;  // > 0: `sweep` instead of `tune` (the tuner and trials are planned)
  bool json = false;
  std::string progress = "auto";  // cli/progress.h: auto, bar, plain, json, none
  bool trials_given = false;      // --kernel: without --trials every valid config is measured
  bool no_winograd = false;       // refuse a Winograd sketch (--template)
  TaskTuneOptions tuning;         // tuner_options get budget=trials for tuners that take one
};

// Returns the process exit code (kInterruptedExitCode when interrupted); throws UserError / EnvironmentError for bad
// input.
int RunTune(const TuneOptions& options, std::ostream& out);

}  // namespace tt
