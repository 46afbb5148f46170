#pragma once
// What AutoTVM records mean here, and back. AutoTVM's conv2d_nchw and depthwise_conv2d_nchw
// CUDA templates (also used for OpenCL targets) share their knob names and split semantics with
// our conv2d_direct_local and depthwise_conv2d_direct sketches. Any other sketch is written
// under the task name "tensortune.<sketch>" with the workload key as its only argument, so
// that an AutoTVM-format log can carry every trial of a tensortune database.
#include <map>
#include <string>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"
#include "interchange/autotvm_record.h"
#include "ops/kernel_template.h"

namespace tt {

struct MappedTrial {
  Workload workload;
  const KernelTemplate* kernel = nullptr;
  std::string config_key;
  std::string config_json;
  MeasureResult result;
  std::string measured_at;  // ISO-8601 UTC
};

struct RecordMapping {
  // kSkipped: a valid record of something we do not have (another operator or template, a
  // shape our sketches cannot express, or split factors that do not multiply to the
  // workload's extent, which AutoTVM itself cannot apply). kBad: the record contradicts itself
  // or our mapping (unknown knob, wrong arity, impossible shape).
  enum class Outcome { kMapped, kSkipped, kBad };
  Outcome outcome = Outcome::kBad;
  std::string reason;
  MappedTrial trial;
};

class AutoTvmMapper {
 public:
  RecordMapping Map(const AutoTvmRecord& record);

 private:
  const ConfigSpace& SpaceOf(const KernelTemplate& kernel, const Workload& workload);
  std::map<std::string, ConfigSpace> spaces_;  // by template name and workload key
};

// The device an AutoTVM target ("cuda -model=titanx") stands for: imported, limits unknown.
DeviceInfo AutoTvmTargetDevice(const std::string& target);
// The target that names `device` in an exported log.
std::string AutoTvmTargetOf(const DeviceInfo& device);
// The record of one trial; MapAutoTvmRecord gives the trial back.
AutoTvmRecord ToAutoTvmRecord(const Workload& workload, const KernelTemplate& kernel, const std::string& config_json,
                              const MeasureResult& result, const std::string& target, const std::string& measured_at);

}  // namespace tt
