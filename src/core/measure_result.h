#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tt {

// How one measured configuration ended. Every value but kOk costs a trial and has fitness 0.
enum class MeasureStatus {
  kOk,
  kInvalidConfig,  // violates a constraint (device limits, template rules): never compiled
  kCompileError,
  kRuntimeError,  // an OpenCL error, or the worker process crashed
  kWrongAnswer,   // output differs from the CPU reference
  kTimeout,       // compile + run exceeded the per-config time limit; the worker was killed
};

std::string_view ToString(MeasureStatus status);
std::optional<MeasureStatus> ParseMeasureStatus(std::string_view text);

struct MeasureResult {
  MeasureStatus status = MeasureStatus::kOk;
  std::vector<double> times_s;  // every timed repeat, in launch order (warm-up excluded)
  double time_s = 0;            // median of times_s; 0 unless ok
  double gflops = 0;            // from time_s; 0 unless ok
  double compile_s = 0;
  // Where the wall clock went (seconds), for the history's time split. compile_s is the build;
  // first_launch_s the first launch, where a driver such as POCL generates the code for the
  // work-group size; verify_s reading the output back and checking it; timed_s the timed
  // repeats; wall_s this config's share of the measurer's wall clock (its share of a parallel
  // build phase plus its own timing), which the others do not add up to.
  double first_launch_s = 0;
  double verify_s = 0;
  double timed_s = 0;
  double wall_s = 0;
  std::string error;  // compiler log or failure text; empty when ok
  // A failure of the environment rather than of the config (the worker killed from outside, a
  // garbled reply, a timeout that a loaded machine may explain): later runs may measure it again.
  bool transient = false;
  // tensortune-mpi: the rank, host and device that measured it; empty when this process did.
  std::string measured_by;

  bool ok() const { return status == MeasureStatus::kOk; }
  static MeasureResult Failure(MeasureStatus status, std::string error);
  static MeasureResult Success(std::vector<double> times_s, double flops, double compile_s);
};

// A recorded result once its config was timed again (schedule/retime_leaders.h): an ok result's
// repeats join the record's (its time becomes their median, its time split grows by the new
// one's); a failure that is not the environment's makes it a failure (the config is no longer
// one to keep; the repeats measured before stay). nullopt, nothing to change, for a transient
// failure or a record that was not ok.
std::optional<MeasureResult> RetimedResult(const MeasureResult& recorded, const MeasureResult& again);

}  // namespace tt
