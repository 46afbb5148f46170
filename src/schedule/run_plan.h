#pragma once
// What `tune` and `sweep` decide before TuneTask runs one task: which tuner and how many
// trials (a sweep measures every valid config when there are few enough, in grid order, else a
// random sample), whether other devices' records prime the tuner, and the options TuneTask gets
// (the batch size counted per measuring rank under tensortune-mpi).
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/task_tuner.h"
#include "space/config_space.h"

namespace tt {

struct RunPlan {
  std::string tuner;
  int64_t trials = 0;
  bool covers_space = false;  // the trials are every valid config
};

// `sweep_limit` 0: the tuner and trials asked for. Else every valid config when there are at
// most `sweep_limit` of them ("grid"), else "random" with `sweep_limit` trials; a space too
// large to count is always sampled.
RunPlan PlanRun(const TaskTuneOptions& asked, int64_t sweep_limit, const ConfigSpace& space);

// The options TuneTask gets: the plan's tuner and trials, recorded as "sweep-<tuner>" for a
// sweep, the tuner's budget-scaled defaults for these trials, and `asked.batch_size` per
// measuring rank (`parallelism` ranks measure at once).
TaskTuneOptions PlannedOptions(const TaskTuneOptions& asked, const RunPlan& plan, int64_t sweep_limit, int parallelism);

// --warm-from: empty or "auto" (the most similar other devices), "none", or devices by name.
// Other devices' records prime a tuner (never `auto`, whose flow chooses itself) outside a sweep
// unless "none" was given; NamesDevices: the user named the devices.
bool WantsOtherDevices(const std::vector<std::string>& warm_from, const RunPlan& plan, int64_t sweep_limit);
bool NamesDevices(const std::vector<std::string>& warm_from);

}  // namespace tt
