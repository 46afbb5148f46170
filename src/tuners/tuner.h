#pragma once
// A tuner proposes configs and learns from their results. It never opens the database or
// touches a device: history arrives as plain values through Seed().
#include <cstddef>
#include <vector>

#include "core/measure_result.h"
#include "space/config_space.h"
#include "tuners/warm_start.h"

namespace tt {

struct Observation {
  Config config;
  MeasureStatus status = MeasureStatus::kOk;
  double gflops = 0;  // fitness; 0 for every status but ok
};

class Tuner {
 public:
  virtual ~Tuner() = default;
  // Configs already measured for this task (earlier runs). They are never proposed again,
  // and a tuner may learn from them.
  virtual void Seed(const std::vector<Observation>& history) = 0;
  // History of similar tasks or other devices, given before the first NextBatch. Tuners that
  // cannot use it ignore it, and say so through UsesWarmStart.
  virtual void Prime(const WarmStart&) {}
  // Whether Prime changes what the tuner proposes; false: a warm start is ignored, and the
  // callers that were given one say so.
  virtual bool UsesWarmStart() const { return false; }
  // Up to `max_size` valid configs never proposed or seeded before. Empty only when the
  // space holds no such config any more.
  virtual std::vector<Config> NextBatch(size_t max_size) = 0;
  virtual void Update(const std::vector<Observation>& measured) = 0;
  // Seconds each training of a cost model took, for tuners that have one.
  virtual std::vector<double> ModelFitSeconds() const { return {}; }
};

}  // namespace tt
