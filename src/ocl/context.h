#pragma once
// One device's context and its in-order, profiling-enabled command queue.
#include <CL/cl.h>

#include <array>
#include <span>
#include <string_view>

#include "core/device_info.h"
#include "ocl/buffer.h"
#include "ocl/cl_handle.h"
#include "ocl/devices.h"
#include "ocl/program.h"

namespace tt::ocl {

// One kernel launch: the kernel, its arguments set, and its NDRange (a local size of all zeros
// lets the driver choose the work-group size).
struct KernelRun {
  const Kernel* kernel = nullptr;
  unsigned dims = 1;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{0, 0, 0};
};

class Context {
 public:
  explicit Context(const Device& device);  // throws EnvironmentError

  const DeviceInfo& device() const { return device_.info; }
  cl_device_id device_id() const { return device_.id; }
  cl_context handle() const { return context_.get(); }
  cl_command_queue queue() const { return queue_.get(); }

  BuildResult Build(std::string_view source, std::string_view options) const;
  FloatBuffer CreateBuffer(size_t elements) const;
  // Blocking transfers of exactly buffer.elements() floats.
  void Write(const FloatBuffer& buffer, std::span<const float> data) const;
  void Read(const FloatBuffer& buffer, std::span<float> data) const;
  // Runs the kernel to completion and returns its profiled device time in seconds.
  // A local size of all zeros lets the driver choose the work-group size.
  double Launch(const Kernel& kernel, unsigned dims, const std::array<size_t, 3>& global,
                const std::array<size_t, 3>& local) const;
  // Runs the kernels to completion, enqueued back to back as a program enqueues them, and
  // returns the profiled device time from the first one's start to the last one's end: the
  // driver's gaps between them count (POCL at two threads: about 20 us a gap).
  double LaunchInOrder(std::span<const KernelRun> runs) const;

 private:
  Device device_;
  ClHandle<cl_context, clReleaseContext> context_;
  ClHandle<cl_command_queue, clReleaseCommandQueue> queue_;
};

// The profiled device time from the start of `first` to the end of `last` (the same event for
// one command), in seconds; 0 when the end precedes the start.
double ProfiledSeconds(cl_event first, cl_event last);

}  // namespace tt::ocl
