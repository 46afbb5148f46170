#pragma once
// What the runtime tests share: the default OpenCL device (POCL in CI) with a context and a
// queue of the test's own, as a program embedding tensortune has them; history databases
// filled with chosen configs; and CPU references.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_program.h"
#include "core/rng.h"
#include "history/sqlite_history_store.h"
#include "ocl/devices.h"
#include "ops/kernel_template.h"
#include "space/knob_schema.h"
#include "tensortune/runtime.h"

namespace tt::testing {

// The caller's OpenCL objects.
class ClEnvironment {
 public:
  ClEnvironment() {
    const auto devices = ocl::EnumerateDevices();
    if (devices.empty()) throw std::runtime_error("no OpenCL device");
    device_ = devices.front().id;
    info_ = devices.front().info;
    cl_int status = CL_SUCCESS;
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(devices.front().platform), 0};
    context_ = clCreateContext(properties, 1, &device_, nullptr, nullptr, &status);
    if (status != CL_SUCCESS) throw std::runtime_error("clCreateContext");
    queue_ = NewQueue();
  }
  ~ClEnvironment() {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    for (cl_command_queue q : queues_) clReleaseCommandQueue(q);
    clReleaseContext(context_);
  }
  ClEnvironment(const ClEnvironment&) = delete;
  ClEnvironment& operator=(const ClEnvironment&) = delete;

  cl_context context() const { return context_; }
  cl_device_id device() const { return device_; }
  cl_command_queue queue() const { return queue_; }
  const DeviceInfo& info() const { return info_; }

  cl_command_queue NewQueue() {
    cl_int status = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
    if (status != CL_SUCCESS) throw std::runtime_error("clCreateCommandQueue");
    queues_.push_back(q);
    return q;
  }
  cl_mem Buffer(const std::vector<float>& data) {
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(float),
                              const_cast<float*>(data.data()), &status);
    if (status != CL_SUCCESS) throw std::runtime_error("clCreateBuffer");
    buffers_.push_back(m);
    return m;
  }
  cl_mem Empty(size_t elements) { return Buffer(std::vector<float>(elements, NAN)); }
  std::vector<float> Read(cl_mem m, size_t elements, cl_command_queue q = nullptr) const {
    std::vector<float> data(elements);
    if (clEnqueueReadBuffer(q ? q : queue_, m, CL_TRUE, 0, elements * sizeof(float), data.data(), 0, nullptr,
                            nullptr) != CL_SUCCESS)
      throw std::runtime_error("clEnqueueReadBuffer");
    return data;
  }

 private:
  cl_device_id device_ = nullptr;
  DeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_command_queue> queues_;
  std::vector<cl_mem> buffers_;
};

// Records `key` as an ok trial of (workload, template) on `device` at `gflops`.
inline void Record(const std::string& db, const Workload& w, const std::string& template_name, const std::string& key,
                   const DeviceInfo& device, double gflops = 10) {
  auto store = SqliteHistoryStore::Open(db);
  const KernelTemplate& kernel = *FindTemplate(template_name);
  const ConfigSpace space = kernel.Space(w, LimitsOf(device));
  const auto config = space.FromKey(key);
  ASSERT_TRUE(config) << key;
  const TemplateRef ref{template_name, std::string(kernel.op()), kernel.SourceHash(), KnobSchema(space)};
  const TaskIds ids = store->EnsureTask(w, kernel.Flops(w), ref, device);
  const int64_t run = store->BeginRun(ids, {"random", "", 1, "test", 1, 0});
  TrialRecord r;
  r.config_key = key;
  r.config_json = space.ToJson(*config);
  r.result = MeasureResult::Success({kernel.Flops(w) / gflops / 1e9}, kernel.Flops(w), 0.1);
  store->RecordBatch(run, ids, {r});
}

// The first valid config (in a seeded random order) for which `wanted` holds.
template <class Predicate>
std::string FindConfig(const Workload& w, const std::string& template_name, const DeviceInfo& device,
                       Predicate wanted) {
  const ConfigSpace space = FindTemplate(template_name)->Space(w, LimitsOf(device));
  Rng rng(7);
  for (int i = 0; i < 200000; ++i) {
    const Config c = space.Random(rng);
    if (space.IsValid(c) && wanted(space, c)) return space.Key(c);
  }
  return "";
}

// Small integers: every sum is exact in float, so any order matches the reference.
inline std::vector<float> SmallIntegers(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(static_cast<int>(rng.Below(5)) - 2);
  return v;
}

inline size_t Product(const std::vector<int64_t>& dims) {
  size_t p = 1;
  for (int64_t d : dims) p *= static_cast<size_t>(d);
  return p;
}

inline void ExpectSame(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << "element " << i;
}

inline Workload Parse(const tensortune::Workload& w) { return ParseWorkload(w.op, w.shape, w.flags); }

// The history database of a test's scratch directory.
inline std::string Db(const ScratchDir& dir) { return (dir.path() / "history.db").string(); }

// The code of the tensortune::Error that `f` throws.
template <class F>
tensortune::ErrorCode CodeOf(F f) {
  try {
    f();
  } catch (const tensortune::Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no tensortune::Error";
  return tensortune::ErrorCode::kOpenCL;
}

}  // namespace tt::testing
