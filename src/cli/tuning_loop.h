#pragma once
// The one propose -> measure -> feed back cycle, shared by tune, sweep and compare.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/measurer.h"
#include "tuners/tuner.h"

namespace tt {

struct LoopEnd {
  int64_t measured = 0;
  bool exhausted = false;     // the tuner had nothing left to propose
  bool stopped = false;       // on_batch asked to stop
  double tuner_seconds = 0;   // time spent inside the tuner (NextBatch and Update)
};

// Called with each measured batch before the tuner sees it; returning false stops the loop
// and the batch is not fed back.
using BatchHandler = std::function<bool(const std::vector<Config>&, const std::vector<MeasureResult>&)>;

// Applies --pin knob=value options to `space`; throws UserError naming a bad one.
void ApplyPins(ConfigSpace& space, const std::vector<std::string>& pins);

LoopEnd RunTuningLoop(Tuner& tuner, Measurer& measurer, const MeasureTask& task, int64_t trials,
                      int64_t batch_size, const BatchHandler& on_batch);

}  // namespace tt
