// The runtime proper: the caller's OpenCL objects, programs built once per runtime (and kept
// on disk when asked), and operators that bind the caller's buffers and launch their kernels.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <sstream>

#include "core/errors.h"
#include "ocl/cl_error.h"
#include "ocl/devices.h"
#include "runtime/runtime_internal.h"

namespace tensortune {

namespace fs = std::filesystem;

const char* ToString(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid-argument";
    case ErrorCode::kMissingWorkload:
      return "missing-workload";
    case ErrorCode::kUnknownDevice:
      return "unknown-device";
    case ErrorCode::kWrongDevice:
      return "wrong-device";
    case ErrorCode::kDamagedPack:
      return "damaged-pack";
    case ErrorCode::kDatabase:
      return "database";
    case ErrorCode::kBuildFailed:
      return "build-failed";
    case ErrorCode::kOpenCL:
      return "opencl";
  }
  return "?";
}

Error::Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

const char* ToString(Origin origin) {
  switch (origin) {
    case Origin::kExact:
      return "exact";
    case Origin::kSimilarWorkload:
      return "similar-workload";
    case Origin::kOtherDevice:
      return "other-device";
    case Origin::kDefault:
      return "default";
    case Origin::kOverride:
      return "override";
  }
  return "?";
}

const char* ToString(Layout layout) { return tt::LayoutName(tt::runtime::ToInternal(layout)).data(); }

Layout PlainLayout(Layout layout) { return tt::runtime::ToPublic(tt::PlainLayout(tt::runtime::ToInternal(layout))); }

std::string WorkloadKey(const Workload& workload) { return tt::runtime::ToWorkload(workload).Key(); }

Workload WorkloadFromKey(const std::string& key) {
  try {
    const tt::Workload w = tt::Workload::FromKey(key);
    return tt::runtime::ToPublic(tt::runtime::ToWorkload(tt::runtime::ToPublic(w)));
  } catch (const tt::UserError& e) {
    throw Error(ErrorCode::kInvalidArgument, e.what());
  }
}

ConfigSource::~ConfigSource() = default;

namespace {

constexpr size_t kMaxLogBytes = 4000;

void Check(cl_int status, const std::string& what) {
  if (status != CL_SUCCESS) throw Error(ErrorCode::kOpenCL, what + " failed: " + tt::ocl::ClErrorName(status));
}

// One reference to an OpenCL object.
template <typename T, cl_int (*Retain)(T), cl_int (*Release)(T)>
class Ref {
 public:
  Ref() = default;
  static Ref Adopt(T handle) {
    Ref r;
    r.handle_ = handle;
    return r;
  }
  static Ref Share(T handle) {
    if (handle) Retain(handle);
    return Adopt(handle);
  }
  Ref(const Ref& other) : handle_(other.handle_) {
    if (handle_) Retain(handle_);
  }
  Ref(Ref&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Ref& operator=(Ref other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~Ref() {
    if (handle_) Release(handle_);
  }
  T get() const { return handle_; }
  T release() { return std::exchange(handle_, nullptr); }

 private:
  T handle_ = nullptr;
};

using ContextRef = Ref<cl_context, clRetainContext, clReleaseContext>;
using DeviceRef = Ref<cl_device_id, clRetainDevice, clReleaseDevice>;
using ProgramRef = Ref<cl_program, clRetainProgram, clReleaseProgram>;
using KernelRef = Ref<cl_kernel, clRetainKernel, clReleaseKernel>;
using MemRef = Ref<cl_mem, clRetainMemObject, clReleaseMemObject>;
using EventRef = Ref<cl_event, clRetainEvent, clReleaseEvent>;

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return "";
  log = log.c_str();
  if (log.size() > kMaxLogBytes) log = log.substr(0, kMaxLogBytes) + "\n...";
  return log;
}

// The program binary cache: one file per (device, source, options), checked when read.
class BinaryCache {
 public:
  BinaryCache(std::string directory, std::string fingerprint)
      : directory_(std::move(directory)), fingerprint_(std::move(fingerprint)) {}

  bool enabled() const { return !directory_.empty(); }

  std::optional<std::string> Load(const std::string& key) const {
    std::ifstream in(Path(key), std::ios::binary);
    if (!in) return std::nullopt;
    std::string magic, fingerprint, content_key, hash;
    size_t size = 0;
    if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, fingerprint) || fingerprint != fingerprint_ ||
        !std::getline(in, content_key) || content_key != key || !std::getline(in, hash) || !(in >> size) ||
        in.get() != '\n')
      return std::nullopt;
    std::string binary(size, '\0');
    if (!in.read(binary.data(), static_cast<std::streamsize>(size)) || tt::TextHash(binary) != hash)
      return std::nullopt;
    return binary;
  }

  void Store(const std::string& key, const std::string& binary) const {
    std::error_code ec;
    fs::create_directories(directory_, ec);
    const fs::path path = Path(key);
    const fs::path partial = path.string() + ".partial-" + std::to_string(::getpid()) + "-" +
                             std::to_string(reinterpret_cast<uintptr_t>(&binary));
    {
      std::ofstream out(partial, std::ios::binary);
      out << kMagic << "\n"
          << fingerprint_ << "\n"
          << key << "\n"
          << tt::TextHash(binary) << "\n"
          << binary.size() << "\n";
      out.write(binary.data(), static_cast<std::streamsize>(binary.size()));
      if (!out.flush()) {
        fs::remove(partial, ec);
        return;  // a cache that cannot be written only costs a compile next time
      }
    }
    fs::rename(partial, path, ec);
    if (ec) fs::remove(partial, ec);
  }

 private:
  static constexpr const char* kMagic = "tensortune-program-binary 1";
  fs::path Path(const std::string& key) const {
    return fs::path(directory_) / (tt::TextHash(fingerprint_ + "\n" + key) + ".bin");
  }

  std::string directory_;
  std::string fingerprint_;
};

std::string ProgramBinary(cl_program program) {
  size_t size = 0;
  Check(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), "clGetProgramInfo");
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  Check(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr), "clGetProgramInfo");
  return binary;
}

}  // namespace

struct Runtime::State {
  ContextRef context;
  DeviceRef device;
  tt::DeviceInfo info;
  DeviceDescription description;
  BinaryCache binaries;
  mutable std::mutex mutex;
  // Programs by build options and source; a future so that concurrent Prepare calls build once.
  mutable std::map<std::pair<std::string, std::string>, std::shared_future<ProgramRef>> programs;
  mutable CacheStats stats;

  State(cl_context c, cl_device_id d, const RuntimeOptions& options)
      : context(ContextRef::Share(c)),
        device(DeviceRef::Share(d)),
        info(Describe(d)),
        description(tt::runtime::ToDescription(info)),
        binaries(options.binary_cache, info.Fingerprint()) {}

  static tt::DeviceInfo Describe(cl_device_id d) {
    try {
      return tt::ocl::DescribeDevice(d);
    } catch (const std::exception& e) {
      throw Error(ErrorCode::kOpenCL, std::string("reading the device: ") + e.what());
    }
  }

  ProgramRef Compile(const KernelSpec& spec, bool& from_disk) const;
  ProgramRef Program(const KernelSpec& spec) const;
};

ProgramRef Runtime::State::Compile(const KernelSpec& spec, bool& from_disk) const {
  const std::string key = tt::TextHash(spec.build_options) + "-" + tt::TextHash(spec.source);
  cl_device_id dev = device.get();
  const std::string options = spec.build_options;
  if (binaries.enabled()) {
    if (const auto binary = binaries.Load(key)) {
      const unsigned char* data = reinterpret_cast<const unsigned char*>(binary->data());
      const size_t size = binary->size();
      cl_int status = CL_SUCCESS, binary_status = CL_SUCCESS;
      ProgramRef program =
          ProgramRef::Adopt(clCreateProgramWithBinary(context.get(), 1, &dev, &size, &data, &binary_status, &status));
      if (status == CL_SUCCESS && binary_status == CL_SUCCESS &&
          clBuildProgram(program.get(), 1, &dev, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
        from_disk = true;
        return program;
      }
      // A binary the driver no longer takes: build from source and replace it.
    }
  }
  const char* text = spec.source.data();
  const size_t length = spec.source.size();
  cl_int status = CL_SUCCESS;
  ProgramRef program = ProgramRef::Adopt(clCreateProgramWithSource(context.get(), 1, &text, &length, &status));
  Check(status, "clCreateProgramWithSource");
  status = clBuildProgram(program.get(), 1, &dev, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::string log = BuildLog(program.get(), dev);
    throw Error(ErrorCode::kBuildFailed, "building the kernel of " + spec.workload + " (" +
                                             spec.choice.kernel_template + ") failed: " + tt::ocl::ClErrorName(status) +
                                             (log.empty() ? "" : "\n" + log));
  }
  from_disk = false;
  if (binaries.enabled()) {
    try {
      binaries.Store(key, ProgramBinary(program.get()));
    } catch (const Error&) {
      // No binary to keep: the next run compiles again.
    }
  }
  return program;
}

ProgramRef Runtime::State::Program(const KernelSpec& spec) const {
  const auto key = std::pair{spec.build_options, spec.source};
  std::promise<ProgramRef> promise;
  std::shared_future<ProgramRef> future;
  bool build = false;
  {
    std::lock_guard lock(mutex);
    auto it = programs.find(key);
    if (it == programs.end()) {
      future = promise.get_future().share();
      programs.emplace(key, future);
      build = true;
    } else {
      future = it->second;
      ++stats.reused;
    }
  }
  if (build) {
    try {
      bool from_disk = false;
      ProgramRef program = Compile(spec, from_disk);
      {
        std::lock_guard lock(mutex);
        ++(from_disk ? stats.loaded_from_disk : stats.built);
      }
      promise.set_value(std::move(program));
    } catch (...) {
      {
        std::lock_guard lock(mutex);
        programs.erase(key);  // a later call may try again
      }
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();
}

struct Operator::State {
  KernelSpec spec;
  ContextRef context;
  DeviceRef device;
  ProgramRef program;
  std::vector<KernelRef> kernels;  // one per launch
  std::mutex mutex;                // kernel arguments, the own scratch buffer and its last use
  MemRef scratch;
  EventRef last_scratch_use;
};

const KernelSpec& Operator::spec() const {
  if (!state_) throw Error(ErrorCode::kInvalidArgument, "an empty Operator");
  return state_->spec;
}

namespace {

template <typename T>
T MemInfo(cl_mem mem, cl_mem_info what) {
  T value{};
  Check(clGetMemObjectInfo(mem, what, sizeof value, &value, nullptr), "clGetMemObjectInfo");
  return value;
}

void CheckBuffer(cl_mem mem, size_t elements, cl_context context, const std::string& what) {
  if (!mem) throw Error(ErrorCode::kInvalidArgument, what + ": a null buffer");
  const size_t bytes = MemInfo<size_t>(mem, CL_MEM_SIZE);
  if (bytes < elements * sizeof(float))
    throw Error(ErrorCode::kInvalidArgument, what + " needs " + std::to_string(elements) +
                                                 " floats; the buffer holds " + std::to_string(bytes / sizeof(float)));
  if (MemInfo<cl_context>(mem, CL_MEM_CONTEXT) != context)
    throw Error(ErrorCode::kInvalidArgument, what + ": a buffer of another OpenCL context");
}

}  // namespace

void Operator::Enqueue(cl_command_queue queue, const std::vector<cl_mem>& buffers,
                       const EnqueueOptions& options) const {
  const KernelSpec& spec = this->spec();  // throws for an empty operator
  State& s = *state_;
  if (!queue) throw Error(ErrorCode::kInvalidArgument, "a null command queue");
  cl_context queue_context = nullptr;
  cl_device_id queue_device = nullptr;
  Check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, nullptr),
        "clGetCommandQueueInfo");
  Check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device, nullptr),
        "clGetCommandQueueInfo");
  if (queue_context != s.context.get() || queue_device != s.device.get())
    throw Error(ErrorCode::kInvalidArgument, "the command queue is not of the runtime's context and device");
  if (buffers.size() != spec.arguments.size())
    throw Error(ErrorCode::kInvalidArgument, spec.workload + " takes " + std::to_string(spec.arguments.size()) +
                                                 " buffers (arguments()), not " + std::to_string(buffers.size()));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Argument& a = spec.arguments[i];
    CheckBuffer(buffers[i], a.elements, s.context.get(),
                "argument " + std::to_string(i) + " (" + a.name + ", " + ToString(a.layout) + ")");
  }
  const bool needs_scratch = spec.scratch_elements > 0;
  if (needs_scratch && options.scratch)
    CheckBuffer(options.scratch, spec.scratch_elements, s.context.get(), "the scratch buffer");

  std::lock_guard lock(s.mutex);
  const bool own_scratch = needs_scratch && !options.scratch;
  if (own_scratch && !s.scratch.get()) {
    cl_int status = CL_SUCCESS;
    s.scratch = MemRef::Adopt(
        clCreateBuffer(s.context.get(), CL_MEM_READ_WRITE, spec.scratch_elements * sizeof(float), nullptr, &status));
    Check(status, "clCreateBuffer(scratch, " + std::to_string(spec.scratch_elements) + " floats)");
  }
  const cl_mem scratch = own_scratch ? s.scratch.get() : options.scratch;
  std::vector<cl_event> wait = options.wait_for;
  if (own_scratch && s.last_scratch_use.get()) wait.push_back(s.last_scratch_use.get());
  EventRef previous;
  std::vector<EventRef> all;
  for (size_t k = 0; k < spec.launches.size(); ++k) {
    const KernelLaunch& launch = spec.launches[k];
    cl_kernel kernel = s.kernels[k].get();
    for (size_t a = 0; a < launch.args.size(); ++a) {
      const cl_mem mem = launch.args[a] == kScratchArgument ? scratch : buffers[static_cast<size_t>(launch.args[a])];
      Check(clSetKernelArg(kernel, static_cast<cl_uint>(a), sizeof(cl_mem), &mem),
            "clSetKernelArg(" + launch.kernel + ")");
    }
    const bool driver_local = launch.local[0] == 0 && launch.local[1] == 0 && launch.local[2] == 0;
    std::vector<cl_event> waits = k == 0 ? wait : std::vector<cl_event>{previous.get()};
    cl_event event = nullptr;
    Check(clEnqueueNDRangeKernel(queue, kernel, launch.dims, nullptr, launch.global.data(),
                                 driver_local ? nullptr : launch.local.data(), static_cast<cl_uint>(waits.size()),
                                 waits.empty() ? nullptr : waits.data(), &event),
          "clEnqueueNDRangeKernel(" + launch.kernel + ")");
    previous = EventRef::Adopt(event);
    all.push_back(previous);
  }
  if (own_scratch) s.last_scratch_use = previous;
  if (options.events)
    for (EventRef& e : all) options.events->push_back(e.release());
  if (options.done) *options.done = previous.release();
}

void Operator::Run(cl_command_queue queue, const std::vector<cl_mem>& buffers) const {
  cl_event done = nullptr;
  EnqueueOptions options;
  options.done = &done;
  Enqueue(queue, buffers, options);
  const EventRef event = EventRef::Adopt(done);
  Check(clFlush(queue), "clFlush");
  Check(clWaitForEvents(1, &done), "clWaitForEvents");
  cl_int execution = CL_COMPLETE;
  Check(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, nullptr),
        "clGetEventInfo");
  Check(execution < 0 ? execution : CL_SUCCESS, "running " + spec().workload);
}

Runtime::Runtime(cl_context context, cl_device_id device, RuntimeOptions options) {
  if (!context || !device) throw Error(ErrorCode::kInvalidArgument, "a null OpenCL context or device");
  cl_uint count = 0;
  Check(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr), "clGetContextInfo");
  std::vector<cl_device_id> devices(count);
  Check(clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id), devices.data(), nullptr),
        "clGetContextInfo");
  if (std::find(devices.begin(), devices.end(), device) == devices.end())
    throw Error(ErrorCode::kInvalidArgument, "the device is not one of the context's");
  state_ = std::make_unique<State>(context, device, options);
}

Runtime::~Runtime() = default;
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;

const DeviceDescription& Runtime::device() const { return state_->description; }

// One form of the fingerprint: the history's (tt::DeviceInfo::Fingerprint).
std::string DeviceDescription::fingerprint() const { return tt::runtime::ToDeviceInfo(*this).Fingerprint(); }

Operator Runtime::Prepare(const KernelSpec& spec) const {
  tt::runtime::CheckSpec(spec, state_->info, ErrorCode::kInvalidArgument);
  auto op = std::make_shared<Operator::State>();
  op->spec = spec;
  op->context = state_->context;
  op->device = state_->device;
  op->program = state_->Program(spec);
  for (const KernelLaunch& launch : spec.launches) {
    cl_int status = CL_SUCCESS;
    op->kernels.push_back(KernelRef::Adopt(clCreateKernel(op->program.get(), launch.kernel.c_str(), &status)));
    Check(status, "clCreateKernel(" + launch.kernel + ")");
    cl_uint args = 0;
    Check(clGetKernelInfo(op->kernels.back().get(), CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr),
          "clGetKernelInfo");
    if (args != launch.args.size())
      throw Error(ErrorCode::kInvalidArgument, "kernel " + launch.kernel + " takes " + std::to_string(args) +
                                                   " arguments; the spec binds " + std::to_string(launch.args.size()));
  }
  return Operator(std::move(op));
}

Operator Runtime::Prepare(const Workload& workload, const ConfigSource& source, const PrepareOptions& options) const {
  return Prepare(Choose(workload, source, device(), options));
}

Operator Runtime::Prepare(const Workload& workload, const KernelPack& pack, const PrepareOptions& options) const {
  return Prepare(Choose(workload, pack, device(), options));
}

Operator Runtime::PrepareDefault(const Workload& workload, const std::string& kernel_template) const {
  KernelSpec spec = tt::runtime::DefaultSpec(tt::runtime::ToWorkload(workload), state_->info, kernel_template,
                                             "asked for", tt::runtime::DefaultKind::kUntuned);
  spec.choice.note = tt::runtime::Describe(spec.choice);
  return Prepare(spec);
}

Operator Runtime::PrepareConfig(const Workload& workload, const std::string& kernel_template,
                                const std::string& config_key) const {
  KernelSpec spec =
      tt::runtime::OverrideSpec(tt::runtime::ToWorkload(workload), state_->info, kernel_template, config_key);
  spec.choice.note = tt::runtime::Describe(spec.choice);
  return Prepare(spec);
}

Operator Runtime::PrepareConversion(Layout from, Layout to, const std::vector<int64_t>& dims) const {
  return Prepare(tt::runtime::ConversionSpec(from, to, dims));
}

CacheStats Runtime::cache_stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

KernelSpec Choose(const Workload& workload, const ConfigSource& source, const DeviceDescription& device,
                  const PrepareOptions& options) {
  const Candidates found = source.Find(workload, device, options.kernel_template);
  return tt::runtime::ChooseFromCandidates(workload, found, tt::runtime::ToDeviceInfo(device), options);
}

KernelSpec Choose(const Workload& workload, const KernelPack& pack, const DeviceDescription& device,
                  const PrepareOptions& options) {
  return tt::runtime::ChooseFromPack(workload, pack, tt::runtime::ToDeviceInfo(device), options);
}

}  // namespace tensortune
