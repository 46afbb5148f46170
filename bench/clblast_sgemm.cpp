// clblast_sgemm M N K [device_index=0]
//
// Times CLBlast's SGEMM on C[M][N] = A[M][K] * B[K][N], row-major float32, on an OpenCL device
// numbered as `tensortune devices` numbers them (platforms in order, every device of each), with
// inputs like tensortune's (small integers in [-2, 2]) and CLBlast's built-in parameters (no
// tuning database of our own). One untimed warm-up call (it also compiles CLBlast's kernels), a
// full check against a CPU reference, then timed calls until they add up to at least one second;
// prints one JSON object with the median and minimum call time, GFLOPS from the median, and the
// number of timed repeats.
//
// Timing: CLBlast runs small products as one kernel ("direct") and large ones as Xgemm plus
// pad/transpose kernels around it ("indirect"; row-major always needs them), and its event only
// covers the last kernel. A direct call is timed by that kernel's profiling event, like
// tensortune's measurer; an indirect one by the wall clock around the call and clFinish.

#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_common.h"
#include "ocl/devices.h"

namespace {
constexpr const char* kProgram = "clblast_sgemm";
}  // namespace

namespace {

struct CallTime {
  double wall_s;
  double kernel_s;  // the event of the last kernel CLBlast enqueued
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "clblast_sgemm: %s\n", message.c_str());
  std::exit(1);
}

void CheckCl(cl_int status, const char* what) {
  if (status != CL_SUCCESS) Fail(std::string(what) + " failed with OpenCL error " + std::to_string(status));
}

// Mirrors CLBlast's own choice: the direct kernel below XGEMM_MIN_INDIRECT_SIZE^3 multiply-adds.
// When the parameter cannot be read, the call is assumed indirect, so timed by the wall clock.
bool UsesDirectKernel(cl_device_id device, long m, long n, long k) {
  std::unordered_map<std::string, size_t> parameters;
  if (clblast::RetrieveParameters(device, "GemmRoutine", clblast::Precision::kSingle, parameters) !=
      clblast::StatusCode::kSuccess)
    return false;
  const auto found = parameters.find("XGEMM_MIN_INDIRECT_SIZE");
  if (found == parameters.end()) return false;
  const double threshold = static_cast<double>(found->second);
  return static_cast<double>(m) * n * k < threshold * threshold * threshold;
}

double EventSeconds(cl_event event) {
  cl_ulong start = 0, end = 0;
  CheckCl(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr),
          "clGetEventProfilingInfo");
  CheckCl(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
          "clGetEventProfilingInfo");
  return static_cast<double>(end - start) * 1e-9;
}

cl_mem UploadBuffer(cl_context context, cl_command_queue queue, const std::vector<float>& data) {
  cl_int status = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, data.size() * sizeof(float), nullptr, &status);
  CheckCl(status, "clCreateBuffer");
  CheckCl(
      clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, data.size() * sizeof(float), data.data(), 0, nullptr, nullptr),
      "clEnqueueWriteBuffer");
  return buffer;
}

// With inputs in [-2, 2] every partial sum is a small integer, exact in float in any order.
void CheckAgainstReference(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                           long m, long n, long k) {
  std::vector<float> row(static_cast<size_t>(n));
  for (long i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (long p = 0; p < k; ++p) {
      const float x = a[i * k + p];
      for (long j = 0; j < n; ++j) row[j] += x * b[p * n + j];
    }
    for (long j = 0; j < n; ++j)
      if (c[i * n + j] != row[j])
        Fail("C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(c[i * n + j]) +
             ", expected " + std::to_string(row[j]));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: clblast_sgemm M N K [device_index=0]\n");
    return 2;
  }
  const long m = bench::ParseCount(kProgram, argv[1], "M", 1), n = bench::ParseCount(kProgram, argv[2], "N", 1),
             k = bench::ParseCount(kProgram, argv[3], "K", 1);
  const long index = argc == 5 ? bench::ParseCount(kProgram, argv[4], "device_index", 0) : 0;

  // Numbered as `tensortune devices` numbers them.
  const std::vector<tt::ocl::Device> devices = tt::ocl::EnumerateDevices();
  if (index >= static_cast<long>(devices.size()))
    Fail("device " + std::to_string(index) + " requested, " + std::to_string(devices.size()) + " found");
  const tt::ocl::Device& device = devices[index];

  cl_int status = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(device.platform), 0};
  cl_context context = clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status);
  CheckCl(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device.id, CL_QUEUE_PROFILING_ENABLE, &status);
  CheckCl(status, "clCreateCommandQueue");

  const std::vector<float> a = bench::SmallIntegers(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = bench::SmallIntegers(static_cast<size_t>(k * n), 2);
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);
  cl_mem a_mem = UploadBuffer(context, queue, a);
  cl_mem b_mem = UploadBuffer(context, queue, b);
  cl_mem c_mem = UploadBuffer(context, queue, c);

  auto sgemm = [&]() -> CallTime {
    cl_event event = nullptr;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const clblast::StatusCode code =
        clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, m, n, k,
                             1.0f, a_mem, 0, k, b_mem, 0, n, 0.0f, c_mem, 0, n, &queue, &event);
    if (code != clblast::StatusCode::kSuccess) Fail("clblast::Gemm returned status " + std::to_string(int(code)));
    CheckCl(clFinish(queue), "clFinish");
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    const double kernel = EventSeconds(event);
    clReleaseEvent(event);
    return {wall, kernel};
  };

  sgemm();  // warm-up: kernel compilation, thread pool, page faults
  CheckCl(clEnqueueReadBuffer(queue, c_mem, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  CheckAgainstReference(a, b, c, m, n, k);

  const bool direct = UsesDirectKernel(device.id, m, n, k);
  std::vector<double> times;
  double total = 0;
  while (total < 1.0) {
    const CallTime t = sgemm();
    times.push_back(direct ? t.kernel_s : t.wall_s);
    total += times.back();
  }

  const double median = bench::Median(times);
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  std::printf(
      "{\"m\": %ld, \"n\": %ld, \"k\": %ld, \"device\": \"%s\", \"median_s\": %.9g, \"min_s\": %.9g, "
      "\"gflops\": %.6g, \"repeats\": %zu, \"kernel_path\": \"%s\", \"timing\": \"%s\"}\n",
      m, n, k, device.info.name.c_str(), median, *std::min_element(times.begin(), times.end()), flops / median * 1e-9,
      times.size(), direct ? "direct" : "indirect",
      direct ? "opencl-event" : "wall-clock around clblast::Gemm + clFinish");

  clReleaseMemObject(a_mem);
  clReleaseMemObject(b_mem);
  clReleaseMemObject(c_mem);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
