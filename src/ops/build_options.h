#pragma once
// Pieces every kernel template uses to turn a config into compiler options and to check it
// against the device before anything is compiled.
#include <cstdint>
#include <optional>
#include <string>

#include "ops/kernel_template.h"

namespace tt {

// " -D NAME=value"
std::string Define(const std::string& name, int64_t value);
// " -D PREFIX0=f0 -D PREFIX1=f1 ..." for the factors of a split knob.
std::string DefineSplit(const std::string& prefix, const KnobValue& split);
// The 2-D NDRange of two 4-way splits (work-groups, strided tiles, work-items, contiguous
// elements): dimension 0 along `dim0`, 1 along `dim1`, work-groups split[2] items wide.
LaunchGeometry SplitGeometry2d(const KnobValue& dim0, const KnobValue& dim1);
// Why a kernel with this work-group size and local memory does not fit the device, if it does not.
std::optional<std::string> CheckDeviceLimits(int64_t work_group, int64_t local_bytes, const DeviceLimits& limits);

}  // namespace tt
