#include "ocl/context.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ocl/cl_error.h"

namespace tt::ocl {
namespace {

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return "";
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return "";
  return log.c_str();
}

cl_ulong ProfilingTime(cl_event event, cl_profiling_info what) {
  cl_ulong ns = 0;
  CheckCl(clGetEventProfilingInfo(event, what, sizeof(ns), &ns, nullptr), "clGetEventProfilingInfo");
  return ns;
}

void CheckSize(const FloatBuffer& buffer, size_t elements) {
  if (buffer.elements() != elements)
    throw std::invalid_argument("buffer of " + std::to_string(buffer.elements()) + " floats transferred with " +
                                std::to_string(elements));
}

}  // namespace

Context::Context(const Device& device) : device_(device) {
  cl_int status = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(device.platform), 0};
  context_ = decltype(context_)(clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status));
  CheckCl(status, "clCreateContext");
  queue_ = decltype(queue_)(clCreateCommandQueue(context_.get(), device.id, CL_QUEUE_PROFILING_ENABLE, &status));
  CheckCl(status, "clCreateCommandQueue");
}

BuildResult Context::Build(std::string_view source, std::string_view options) const {
  const char* text = source.data();
  const size_t length = source.size();
  cl_int status = CL_SUCCESS;
  Program program(clCreateProgramWithSource(context_.get(), 1, &text, &length, &status));
  CheckCl(status, "clCreateProgramWithSource");
  const std::string option_text(options);
  status = clBuildProgram(program.get(), 1, &device_.id, option_text.c_str(), nullptr, nullptr);
  std::string log = BuildLog(program.get(), device_.id);
  if (status == CL_SUCCESS) return {std::move(program), std::move(log)};
  // CL_INVALID_BUILD_OPTIONS and friends leave no log; the error name is the explanation.
  if (log.empty()) log = std::string("clBuildProgram failed: ") + ClErrorName(status);
  return {std::nullopt, std::move(log)};
}

FloatBuffer Context::CreateBuffer(size_t elements) const {
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, elements * sizeof(float), nullptr, &status);
  CheckCl(status, "clCreateBuffer(" + std::to_string(elements) + " floats)");
  return FloatBuffer(mem, elements);
}

void Context::Write(const FloatBuffer& buffer, std::span<const float> data) const {
  CheckSize(buffer, data.size());
  CheckCl(
      clEnqueueWriteBuffer(queue_.get(), buffer.get(), CL_TRUE, 0, data.size_bytes(), data.data(), 0, nullptr, nullptr),
      "clEnqueueWriteBuffer");
}

void Context::Read(const FloatBuffer& buffer, std::span<float> data) const {
  CheckSize(buffer, data.size());
  CheckCl(
      clEnqueueReadBuffer(queue_.get(), buffer.get(), CL_TRUE, 0, data.size_bytes(), data.data(), 0, nullptr, nullptr),
      "clEnqueueReadBuffer");
}

double Context::Launch(const Kernel& kernel, unsigned dims, const std::array<size_t, 3>& global,
                       const std::array<size_t, 3>& local) const {
  const KernelRun run{&kernel, dims, global, local};
  return LaunchInOrder(std::span(&run, 1));
}

double Context::LaunchInOrder(std::span<const KernelRun> runs) const {
  if (runs.empty()) throw std::invalid_argument("LaunchInOrder: no kernel to run");
  std::vector<cl_event> raw;
  std::vector<ClHandle<cl_event, clReleaseEvent>> events;
  for (const KernelRun& run : runs) {
    const bool driver_chooses_local = run.local[0] == 0 && run.local[1] == 0 && run.local[2] == 0;
    cl_event event = nullptr;
    CheckCl(clEnqueueNDRangeKernel(queue_.get(), run.kernel->get(), run.dims, nullptr, run.global.data(),
                                   driver_chooses_local ? nullptr : run.local.data(), 0, nullptr, &event),
            "clEnqueueNDRangeKernel");
    events.emplace_back(event);
    raw.push_back(event);
  }
  const cl_int waited = clWaitForEvents(static_cast<cl_uint>(raw.size()), raw.data());
  for (cl_event event : raw) {
    cl_int execution = CL_COMPLETE;
    CheckCl(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(execution), &execution, nullptr),
            "clGetEventInfo");
    CheckCl(execution < 0 ? execution : CL_SUCCESS, "kernel execution");
  }
  CheckCl(waited, "clWaitForEvents");
  return ProfiledSeconds(raw.front(), raw.back());
}

double ProfiledSeconds(cl_event first, cl_event last) {
  const cl_ulong start = ProfilingTime(first, CL_PROFILING_COMMAND_START);
  const cl_ulong end = ProfilingTime(last, CL_PROFILING_COMMAND_END);
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0;
}

}  // namespace tt::ocl
