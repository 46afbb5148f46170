#pragma once
// Kernel Tuner's cache files: the brute-forced (or partly searched) space of one kernel on one
// GPU, as the auto-tuning community publishes them. {"device_name", "kernel_name",
// "problem_size", "tune_params_keys", "tune_params": {name: [values]}, "objective",
// "cache": {"v1,v2,...": {name: value, ..., "time": ms | "InvalidConfig" | ..., "times": [ms],
// "compile_time": ms, "timestamp": ...}}}.
//
// The kernel becomes a user-defined space: one knob per tunable parameter (integers ordered,
// with next-smaller/next-larger neighbours; other ordered numbers by rank; anything else
// categorical). Its definition travels as JSON text (stored in the history beside the
// template), from which UserSpaceFromJson rebuilds the same space for replay.
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"
#include "space/config_space.h"

namespace tt {

struct KernelTunerTrial {
  std::string cache_key;  // Kernel Tuner's own key, for messages
  std::string config_key;
  std::string config_json;
  MeasureResult result;
  std::string measured_at;  // ISO-8601 UTC; empty when the file has none we can read
};

struct KernelTunerCache {
  std::string kernel_name;
  std::string space_json;  // the user-defined space: knobs and their values
  Workload workload;       // op "kernel_tuner", dims p0, p1, ... from problem_size
  DeviceInfo device;       // imported; its name is empty when the file's device_name is
  // Kernel Tuner's open format: the cache of an interrupted run, without its closing brackets
  // (Kernel Tuner reads it, and goes on appending to it).
  bool open = false;
  std::vector<KernelTunerTrial> trials;
  // Entries that could not be read, in file order: "cache entry 'k': why". A bad time, a key
  // that does not name its entry's parameters, a configuration or key given twice (the
  // earlier of two equal keys is the bad one: JSON readers, Kernel Tuner's too, keep the last).
  std::vector<std::string> errors;
};

// True when `text` looks like a Kernel Tuner cache file rather than an AutoTVM log.
bool LooksLikeKernelTunerCache(std::string_view text);
// Throws UserError naming the problem (with its line for JSON syntax errors) when the file as
// a whole is unusable; bad entries are listed in `errors`.
KernelTunerCache ParseKernelTunerCache(std::string_view text);

// The space of a user-defined kernel. Kernel Tuner's restrictions are not in its cache files,
// so the configurations it recorded stand for the valid ones: any other is invalid.
// Throws UserError when the definition is malformed.
ConfigSpace UserSpaceFromJson(std::string_view space_json, const std::vector<std::string>& valid_keys);

// The operator of a user-defined kernel's workloads and template: its kernel name may be any,
// one of our sketches' too, so this is what tells it apart from them.
inline constexpr const char* kUserSpaceOp = "kernel_tuner";

// Runs of a user-defined kernel have no FLOP count: this is the one recorded, so that their
// "GFLOPS" read as executions per second.
inline constexpr double kUserSpaceFlops = 1e9;

}  // namespace tt
