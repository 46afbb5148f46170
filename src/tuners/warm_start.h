#pragma once
// What a warm start hands a tuner: plain values chosen from other tasks' history (tuners never
// open the database). Unlike Seed(), nothing here was measured for this task.
#include <vector>

#include "space/config_adapt.h"
#include "space/config_space.h"

namespace tt {

// A recorded config of a similar workload, adapted to this task's space (valid).
struct WarmStartCandidate {
  Config config;
  double metric = 0;  // filtering metric m(h, i); candidates come best first
};

// A trial of another workload for a model to learn from, with that workload's features.
struct TransferSample {
  KnobValues values;  // knob values as recorded (the other workload's extents)
  std::vector<float> workload_features;
  double gflops = 0;      // 0 for failures
  double similarity = 0;  // match score of its workload with this task's
  // What it was recorded on, when samples come from several devices (cross-device warm start:
  // one index per device); samples of one source share a scale, sources do not.
  int source = 0;
};

struct WarmStart {
  std::vector<WarmStartCandidate> candidates;
  std::vector<float> workload_features;  // this task's, in the order TransferSample uses
  std::vector<TransferSample> transfer;
};

}  // namespace tt
