#pragma once
// A measurer bound to one kind of device, as the commands that tune need it: the device whose
// history the trials join and the limits its search spaces obey. Which one a command gets is
// chosen here, so that a program that measures elsewhere (tensortune-mpi: on other ranks) can
// put its own in place without the commands knowing.
#include <functional>
#include <memory>
#include <optional>

#include "core/device_info.h"
#include "measure/measurer.h"
#include "ops/kernel_template.h"

namespace tt {

struct OpenClMeasurerOptions;

class DeviceMeasurer : public Measurer {
 public:
  virtual const DeviceInfo& device() const = 0;
  DeviceLimits limits() const {
    return {device().max_work_group_size, device().local_mem_bytes, device().native_float_width};
  }
  // Configs that are measured at the same time: a batch is --batch-size times this, so that
  // every measuring process has work until the batch ends.
  virtual int parallelism() const { return 1; }
};

using DeviceMeasurerFactory = std::function<std::unique_ptr<DeviceMeasurer>(const OpenClMeasurerOptions&)>;

// Replaces how MakeDeviceMeasurer makes measurers, for the rest of the process.
void SetDeviceMeasurerFactory(DeviceMeasurerFactory factory);
// The measurer that the tuning commands use: the factory set, else MakeLocalMeasurer.
std::unique_ptr<DeviceMeasurer> MakeDeviceMeasurer(const OpenClMeasurerOptions& options);
// A measurer in this process: the OpenCL device named by options.device_spec through a worker
// process, or the simulated device of a "fake" spec (see ParseFakeDeviceSpec).
std::unique_ptr<DeviceMeasurer> MakeLocalMeasurer(const OpenClMeasurerOptions& options);

// "fake" or "fake:<ms>": a simulated device that answers from a formula after <ms>
// milliseconds per valid config (default 0), for tests and for benchmarks of the run loop.
// Returns the latency in seconds; nullopt when the spec names no fake device. Throws
// UserError for a malformed latency.
std::optional<double> ParseFakeDeviceSpec(const std::string& spec);

}  // namespace tt
