#pragma once
// The line-delimited JSON spoken between OpenClMeasurer and tensortune-worker. The worker first
// sends a hello (its device, or why it has none), then answers each request with one result.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "ops/kernel_template.h"

namespace tt {

struct WorkerHello {
  std::optional<DeviceInfo> device;  // absent when the worker could not open the device
  std::string error;
  bool user_error = false;  // the device spec matched nothing (as opposed to a broken OpenCL)

  static WorkerHello Ready(DeviceInfo device) { return {std::move(device), "", false}; }
  static WorkerHello Failed(std::string error, bool user_error) { return {std::nullopt, std::move(error), user_error}; }
};

struct WorkerRequest {
  // kPrepare makes the inputs and CPU reference of a workload (slow for big shapes, so it is
  // not charged to any config's timeout); kMeasure builds, verifies and times one config;
  // kBuild (a builder's request) builds one config and launches a single work-group of it on
  // scratch buffers, so that the driver generates and caches its code: ok or why not, no time.
  enum class Kind { kPrepare, kMeasure, kBuild };
  Kind kind = Kind::kMeasure;
  std::string template_name;
  std::string workload_key;
  std::string build_options;
  LaunchGeometry geometry;
  std::optional<PrePass> pre_pass;
  double flops = 0;
  double min_time_s = 0.1;
  int max_repeats = 1000;
  double give_up_slower_than_s = 0;  // > 0: stop timing once the first repeats are all slower
  // A user's kernel (ops/user_kernel_template.h): the staged spec file the worker loads its
  // source, arguments and answers from; empty for the built-in templates.
  std::string user_kernel;
};

// Each encoding is one line of JSON without the trailing newline; decoding a malformed line
// gives nullopt.
std::string EncodeHello(const WorkerHello& hello);
std::optional<WorkerHello> DecodeHello(std::string_view line);
std::string EncodeRequest(const WorkerRequest& request);
std::optional<WorkerRequest> DecodeRequest(std::string_view line);
std::string EncodeResult(const MeasureResult& result);
std::optional<MeasureResult> DecodeResult(std::string_view line);

}  // namespace tt
