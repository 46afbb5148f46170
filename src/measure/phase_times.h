#pragma once
// Where a config's measurement spent its seconds, as both worker sessions (templates and users'
// kernels) record them in a MeasureResult.
#include <chrono>
#include <utility>

#include "core/measure_result.h"

namespace tt {

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline MeasureResult WithCompileTime(MeasureResult result, double compile_s) {
  result.compile_s = compile_s;
  return result;
}

struct PhaseTimes {
  double compile_s = 0;
  double first_launch_s = 0;
  double verify_s = 0;
};

inline MeasureResult WithPhaseTimes(MeasureResult result, const PhaseTimes& phases, double timed_s) {
  result.compile_s = phases.compile_s;
  result.first_launch_s = phases.first_launch_s;
  result.verify_s = phases.verify_s;
  result.timed_s = timed_s;
  return result;
}

}  // namespace tt
