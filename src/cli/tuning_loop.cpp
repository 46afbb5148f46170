#include "cli/tuning_loop.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/errors.h"

namespace tt {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void ApplyPins(ConfigSpace& space, const std::vector<std::string>& pins) {
  for (const std::string& pin : pins) {
    const size_t eq = pin.find('=');
    if (eq == std::string::npos) throw UserError("--pin '" + pin + "' is not knob=value");
    try {
      space.Pin(pin.substr(0, eq), pin.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw UserError("--pin " + pin + ": " + e.what());
    }
  }
}

LoopEnd RunTuningLoop(Tuner& tuner, Measurer& measurer, const MeasureTask& task, int64_t trials,
                      int64_t batch_size, const BatchHandler& on_batch) {
  LoopEnd end;
  while (end.measured < trials) {
    auto start = std::chrono::steady_clock::now();
    const auto batch = tuner.NextBatch(static_cast<size_t>(std::min(batch_size, trials - end.measured)));
    end.tuner_seconds += SecondsSince(start);
    if (batch.empty()) {
      end.exhausted = true;
      break;
    }
    const auto results = measurer.Measure(task, batch);
    if (!on_batch(batch, results)) {
      end.stopped = true;
      break;
    }
    end.measured += static_cast<int64_t>(batch.size());
    std::vector<Observation> observations;
    for (size_t i = 0; i < batch.size(); ++i)
      observations.push_back({batch[i], results[i].status, results[i].ok() ? results[i].gflops : 0});
    start = std::chrono::steady_clock::now();
    tuner.Update(observations);
    end.tuner_seconds += SecondsSince(start);
  }
  return end;
}

}  // namespace tt
