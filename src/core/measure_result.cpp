#include "core/measure_result.h"

#include <algorithm>
#include <array>

#include "core/statistics.h"

namespace tt {
namespace {
constexpr std::array<std::pair<MeasureStatus, std::string_view>, 6> kNames{{
    {MeasureStatus::kOk, "ok"},
    {MeasureStatus::kInvalidConfig, "invalid_config"},
    {MeasureStatus::kCompileError, "compile_error"},
    {MeasureStatus::kRuntimeError, "runtime_error"},
    {MeasureStatus::kWrongAnswer, "wrong_answer"},
    {MeasureStatus::kTimeout, "timeout"},
}};
}  // namespace

std::string_view ToString(MeasureStatus status) {
  for (const auto& [s, name] : kNames)
    if (s == status) return name;
  return "unknown";
}

std::optional<MeasureStatus> ParseMeasureStatus(std::string_view text) {
  for (const auto& [s, name] : kNames)
    if (name == text) return s;
  return std::nullopt;
}

MeasureResult MeasureResult::Failure(MeasureStatus status, std::string error) {
  MeasureResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

MeasureResult MeasureResult::Success(std::vector<double> times_s, double flops, double compile_s) {
  MeasureResult r;
  r.times_s = std::move(times_s);
  r.compile_s = compile_s;
  r.time_s = Median(r.times_s);
  r.gflops = r.time_s > 0 ? flops / r.time_s * 1e-9 : 0;
  return r;
}

std::optional<MeasureResult> RetimedResult(const MeasureResult& recorded, const MeasureResult& again) {
  if (!recorded.ok() || (again.transient && !again.ok())) return std::nullopt;
  MeasureResult merged = recorded;
  merged.first_launch_s += again.first_launch_s;
  merged.verify_s += again.verify_s;
  merged.timed_s += again.timed_s;
  merged.wall_s += again.wall_s;
  if (!again.ok()) {
    merged.status = again.status;
    merged.error = "timed again after tuning: " + again.error;
    merged.time_s = merged.gflops = 0;
    return merged;
  }
  merged.times_s.insert(merged.times_s.end(), again.times_s.begin(), again.times_s.end());
  merged.time_s = Median(merged.times_s);
  merged.gflops = merged.time_s > 0 ? recorded.gflops * recorded.time_s / merged.time_s : 0;
  return merged;
}

}  // namespace tt
