#pragma once
// `tensortune tune`: one workload, one template, one tuner, every batch recorded in the
// history database as soon as it is measured.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

#include "measure/opencl_measurer.h"
#include <vector>

namespace tt {

struct TuneOptions {
  std::string op;
  std::string shape;
  std::vector<std::string> shape_flags;  // 0/1 workload dimensions switched on, e.g. transpose_a
  std::vector<std::string> pins;         // "knob=value": knobs held at one value
  std::string kernel_template;  // empty: the operator's first applicable template
  std::string tuner = "bo";
  std::map<std::string, std::string> tuner_options;  // plus budget=trials for tuners that take one
  // Other devices' records of this task to start from (tuners other than auto): "auto" the
  // most similar ones, "none", or device name fragments / indices.
  std::vector<std::string> warm_from{"auto"};
  int64_t trials = 64;
  int64_t batch_size = 8;
  uint64_t seed = 1;
  std::string db = "history.db";
  std::string device = "0";
  double timeout_s = 10;
  int builders = DefaultBuilders();  // see OpenClMeasurerOptions
  double min_time_s = 0.1;
  double time_limit_s = 0;  // > 0: stop after this many seconds of tuning
  bool retry_failed = false;  // measure again configs whose only records are transient failures
  int64_t sweep_limit = 0;  // > 0: `sweep` instead of `tune` (trials and tuner are planned)
  bool json = false;
  std::string command_line;  // recorded with the run
};

// Returns the process exit code (kInterruptedExitCode when interrupted); throws UserError / EnvironmentError for bad input.
int RunTune(const TuneOptions& options, std::ostream& out);

}  // namespace tt
