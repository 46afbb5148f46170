#pragma once
// How well each sketch (kernel template) of a task is likely to do before it has results of
// its own: its best time against the fastest sketch's on other workloads of the same operator
// (this run's other tasks and the device's history), weighted by how alike the workloads
// are; with little evidence, the device's preference (a sketch written for such shapes first;
// on a CPU: Winograd where it applies, then channel-blocked, then channel-vector sketches;
// sketches that stage tiles in local memory last).
#include <map>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/workload.h"
#include "ops/kernel_template.h"

namespace tt {

// One workload on which sketches were measured: each one's best time.
struct SketchEvidence {
  Workload workload;
  std::map<std::string, double> best_time_s;  // by template name
  std::map<std::string, int64_t> trials{};    // by template name: the trials behind its best (absent: unknown)
};

struct SketchPrior {
  double ratio = 1;     // expected (fastest sketch's best) / (this sketch's best), in (0, 1]
  double evidence = 0;  // the similarity weight behind it (0: the device's preference alone)
  int workloads = 0;    // workloads it was measured on beside others
};

// 1 for the same workload, towards 0 as dimensions differ; kernel size and stride count most.
double WorkloadSimilarity(const Workload& a, const Workload& b);

// One prior per sketch, in order. Evidence on `workload` itself is left out: the task's own
// results speak for it. Only workloads where at least two sketches were measured count. A
// sketch's loss counts as far as it was tried as often as the winner (trials known on both
// sides), unless it cannot win (kCannotWin): one first guess at half the speed of the best of
// fifty says little about the sketch.
std::vector<SketchPrior> SketchPriors(const Workload& workload, const std::vector<const KernelTemplate*>& sketches,
                                      const std::vector<SketchEvidence>& evidence, const DeviceInfo& device);

// "0.42 over 3 workloads", "no evidence; local memory is ordinary memory on this CPU", ...
std::string DescribePrior(const SketchPrior& prior, const KernelTemplate& sketch, const Workload& workload,
                          const DeviceInfo& device);

}  // namespace tt
