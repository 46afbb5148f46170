#include "measure/worker_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/rng.h"
#include "measure/phase_times.h"

namespace tt {
namespace {

constexpr uint64_t kInputSeed = 20240601;
// Prepared workloads are kept up to this much memory (host and device together): a network's
// layers fit, and a CPU device shares the host's memory.
constexpr size_t kMaxHeldBytes = size_t{2} << 30;
constexpr size_t kMaxLogBytes = 8192;  // the start of a compiler log says what went wrong
// A config slower than the task's best by the measurer's factor is timed this often: the search
// needs to know that it is slow, not by how much to the last percent.
constexpr size_t kRepeatsBeforeGivingUp = 1;

std::string Truncated(std::string log) {
  if (log.size() <= kMaxLogBytes) return log;
  const size_t dropped = log.size() - kMaxLogBytes;
  log.resize(kMaxLogBytes);
  return log + "\n... (" + std::to_string(dropped) + " more bytes of build log)";
}

// Small integers: every product and sum is exact in float, so any summation order matches.
std::vector<float> RandomInput(size_t elements, Rng& rng) {
  std::vector<float> data(elements);
  for (float& x : data) x = static_cast<float>(static_cast<int>(rng.Below(5)) - 2);
  return data;
}

// The first element off by more than `bound` * (1 + |reference|) (the template's tolerance());
// NaN (never written) fails too.
std::optional<std::string> FindMismatch(const std::vector<float>& got, const std::vector<float>& want, double bound) {
  for (size_t i = 0; i < want.size(); ++i) {
    const double tolerance = bound * (1.0 + std::fabs(want[i]));
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= tolerance)) {
      std::ostringstream text;
      text << "output[" << i << "] = " << got[i] << ", reference " << want[i];
      return text.str();
    }
  }
  return std::nullopt;
}

// One work-group of the launch: enough for a driver to generate the code for its work-group
// size. A driver-chosen size (all zeros) has no such shortcut: the whole launch.
LaunchGeometry OneWorkGroup(LaunchGeometry geometry) {
  if (geometry.local[0] != 0 || geometry.local[1] != 0 || geometry.local[2] != 0)
    for (unsigned d = 0; d < geometry.dims; ++d) geometry.global[d] = geometry.local[d];
  return geometry;
}

}  // namespace

// One workload's host data and device buffers, in the template's argument order.
struct WorkerSession::Workspace {
  std::string key;
  const KernelTemplate* kernel = nullptr;
  std::vector<std::vector<float>> host;  // inputs; the output slot holds the reference
  std::vector<ocl::FloatBuffer> buffers;
  size_t output = 0;
  std::vector<float> scratch;              // the output as read back
  size_t bytes = 0;                        // host and device memory held for this workload
  std::optional<ocl::FloatBuffer> packed;  // a pre-pass's output, grown to the largest asked for
};

bool IsDeviceFault(const std::string& error) {
  // What drivers answer once a kernel has faulted the device (NVIDIA: an out-of-bounds access
  // makes every later call fail with CL_OUT_OF_RESOURCES or an undocumented code).
  for (const char* sign :
       {"CL_OUT_OF_RESOURCES", "CL_INVALID_COMMAND_QUEUE", "CL_INVALID_CONTEXT",
        "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", "CL_DEVICE_NOT_AVAILABLE", "unknown OpenCL error"})
    if (error.find(sign) != std::string::npos) return true;
  return false;
}

WorkerSession::WorkerSession(const ocl::Device& device) : device_handle_(device), context_(device) {
  user_kernels_.emplace(context_);
}
WorkerSession::~WorkerSession() = default;

MeasureResult WorkerSession::Handle(const WorkerRequest& request) {
  MeasureResult result;
  try {
    if (!request.user_kernel.empty()) {
      result = user_kernels_->Handle(request);
    } else if (request.kind == WorkerRequest::Kind::kBuild) {
      result = BuildAhead(request);
    } else {
      result = Prepare(request);
      if (result.ok() && request.kind != WorkerRequest::Kind::kPrepare) result = BuildAndRun(request);
    }
  } catch (const std::exception& e) {
    result = MeasureResult::Failure(MeasureStatus::kRuntimeError, e.what());
  }
  // The config is recorded as failed; the next one gets a context of its own.
  if (result.status == MeasureStatus::kRuntimeError && IsDeviceFault(result.error)) {
    try {
      StartFreshContext();
    } catch (const std::exception& e) {
      result.error += std::string("; no fresh context after it: ") + e.what();
    }
  }
  return result;
}

void WorkerSession::StartFreshContext() {
  workspaces_.clear();  // their buffers belong to the old context
  build_space_.reset();
  user_kernels_.reset();
  context_ = ocl::Context(device_handle_);
  user_kernels_.emplace(context_);
  ++fresh_contexts_;
}

size_t WorkerSession::HeldBytes() const {
  size_t bytes = 0;
  for (const auto& ws : workspaces_) bytes += ws->bytes;
  return bytes;
}

MeasureResult WorkerSession::Prepare(const WorkerRequest& request) {
  const std::string key = request.template_name + " " + request.workload_key;
  for (auto it = workspaces_.begin(); it != workspaces_.end(); ++it) {
    if ((*it)->key != key) continue;
    workspaces_.splice(workspaces_.begin(), workspaces_, it);
    return {};
  }
  auto ws = std::make_unique<Workspace>();
  ws->key = key;
  ws->kernel = FindTemplate(request.template_name);
  if (!ws->kernel)
    return MeasureResult::Failure(MeasureStatus::kRuntimeError, "unknown template '" + request.template_name + "'");
  const Workload workload = Workload::FromKey(request.workload_key);
  const std::vector<BufferSpec> specs = ws->kernel->Buffers(workload);
  size_t elements = 0;
  for (const auto& spec : specs) elements += spec.elements;
  // Room for the new workload first: what it needs must not sit beside what is evicted.
  const size_t needed = 3 * elements * sizeof(float);  // host copy, device buffer, scratch/reference
  while (!workspaces_.empty() && HeldBytes() + needed > kMaxHeldBytes) workspaces_.pop_back();
  Rng rng(kInputSeed);
  std::vector<const float*> inputs;
  size_t outputs = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    ws->host.push_back(specs[i].is_output ? std::vector<float>(specs[i].elements)
                                          : RandomInput(specs[i].elements, rng));
    if (!specs[i].is_output) ws->kernel->DeriveInput(workload, i, ws->host[i]);
    if (specs[i].is_output) {
      ws->output = i;
      ++outputs;
    }
    ws->buffers.push_back(context_.CreateBuffer(specs[i].elements));
  }
  if (outputs != 1)
    return MeasureResult::Failure(MeasureStatus::kRuntimeError, "template must have exactly one output buffer");
  for (size_t i = 0; i < specs.size(); ++i)
    if (i != ws->output) inputs.push_back(ws->host[i].data());
  ws->kernel->Reference(workload, inputs, ws->host[ws->output].data());
  ws->scratch.resize(specs[ws->output].elements);
  ws->bytes = needed;
  workspaces_.push_front(std::move(ws));
  return {};
}

// A builder's work: the program built and one work-group of each kernel launched on buffers
// of the right sizes whose contents do not matter (nothing is checked), so that the driver's
// code generation is paid here, in parallel with other builders, and cached on disk for the
// timing worker. Its result is ok or why not, with the seconds spent.
MeasureResult WorkerSession::BuildAhead(const WorkerRequest& request) {
  const std::string key = request.template_name + " " + request.workload_key;
  if (!build_space_ || build_space_->key != key) {
    build_space_.reset();
    auto ws = std::make_unique<Workspace>();
    ws->key = key;
    ws->kernel = FindTemplate(request.template_name);
    if (!ws->kernel)
      return MeasureResult::Failure(MeasureStatus::kRuntimeError, "unknown template '" + request.template_name + "'");
    for (const BufferSpec& spec : ws->kernel->Buffers(Workload::FromKey(request.workload_key)))
      ws->buffers.push_back(context_.CreateBuffer(spec.elements));
    build_space_ = std::move(ws);
  }
  Workspace& ws = *build_space_;
  const auto start = std::chrono::steady_clock::now();
  const ocl::BuildResult build = context_.Build(ws.kernel->source(), request.build_options);
  const double compile_s = SecondsSince(start);
  if (!build.ok())
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kCompileError, Truncated(build.log)), compile_s);
  const std::optional<PrePass>& pre = request.pre_pass;
  if (pre && pre->input >= ws.buffers.size())
    return WithCompileTime(
        MeasureResult::Failure(MeasureStatus::kRuntimeError, "pre-pass input is not an input buffer"), compile_s);
  MeasureResult built;
  built.compile_s = compile_s;
  try {
    const auto launch_start = std::chrono::steady_clock::now();
    ocl::Kernel kernel = build.program->CreateKernel(ws.kernel->kernel_name());
    if (pre) {
      if (!ws.packed || ws.packed->elements() < pre->scratch_elements)
        ws.packed = context_.CreateBuffer(pre->scratch_elements);
      ocl::Kernel pre_kernel = build.program->CreateKernel(pre->kernel_name);
      pre_kernel.SetArg(0, ws.buffers[pre->input]);
      pre_kernel.SetArg(1, *ws.packed);
      const LaunchGeometry g = OneWorkGroup(pre->geometry);
      context_.Launch(pre_kernel, g.dims, g.global, g.local);
    }
    for (size_t i = 0; i < ws.buffers.size(); ++i)
      kernel.SetArg(static_cast<unsigned>(i), pre && i == pre->input ? *ws.packed : ws.buffers[i]);
    const LaunchGeometry g = OneWorkGroup(request.geometry);
    context_.Launch(kernel, g.dims, g.global, g.local);
    built.first_launch_s = SecondsSince(launch_start);
  } catch (const std::exception& e) {
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kRuntimeError, e.what()), compile_s);
  }
  return built;
}

MeasureResult WorkerSession::BuildAndRun(const WorkerRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const ocl::BuildResult build = context_.Build(current().kernel->source(), request.build_options);
  const double compile_s = SecondsSince(start);
  if (!build.ok())
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kCompileError, Truncated(build.log)), compile_s);
  try {
    return Run(*build.program, request, compile_s);
  } catch (const std::exception& e) {
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kRuntimeError, e.what()), compile_s);
  }
}

// The pre-pass kernel bound to its input and to the workspace's scratch buffer, grown to fit
// and filled with NaN: a main kernel reading what the pre-pass never wrote then fails
// verification instead of finding an earlier config's packing there.
ocl::Kernel WorkerSession::StartPrePass(const ocl::Program& program, const PrePass& pre) {
  Workspace& ws = current();
  if (!ws.packed || ws.packed->elements() < pre.scratch_elements) {
    ws.bytes -= ws.packed ? ws.packed->elements() * sizeof(float) : 0;
    ws.packed.reset();
    ws.packed = context_.CreateBuffer(pre.scratch_elements);
    ws.bytes += pre.scratch_elements * sizeof(float);
  }
  const std::vector<float> nan(ws.packed->elements(), std::numeric_limits<float>::quiet_NaN());
  context_.Write(*ws.packed, nan);
  ocl::Kernel kernel = program.CreateKernel(pre.kernel_name);
  kernel.SetArg(0, ws.buffers[pre.input]);
  kernel.SetArg(1, *ws.packed);
  return kernel;
}

MeasureResult WorkerSession::Run(const ocl::Program& program, const WorkerRequest& request, double compile_s) {
  Workspace& ws = current();
  ocl::Kernel kernel = program.CreateKernel(ws.kernel->kernel_name());
  const std::optional<PrePass>& pre = request.pre_pass;
  if (pre && (pre->input >= ws.buffers.size() || pre->input == ws.output))
    return WithCompileTime(
        MeasureResult::Failure(MeasureStatus::kRuntimeError, "pre-pass input is not an input buffer"), compile_s);
  std::optional<ocl::Kernel> pre_kernel;
  if (pre) pre_kernel = StartPrePass(program, *pre);
  for (size_t i = 0; i < ws.buffers.size(); ++i) {
    kernel.SetArg(static_cast<unsigned>(i), pre && i == pre->input ? *ws.packed : ws.buffers[i]);
    // Inputs are rewritten because an earlier faulty kernel may have scribbled on them; the
    // output starts as NaN so that elements the kernel never writes are caught.
    if (i != ws.output) context_.Write(ws.buffers[i], ws.host[i]);
  }
  std::fill(ws.scratch.begin(), ws.scratch.end(), std::numeric_limits<float>::quiet_NaN());
  context_.Write(ws.buffers[ws.output], ws.scratch);
  std::vector<ocl::KernelRun> runs;
  const auto add_run = [&](const ocl::Kernel& k, const LaunchGeometry& g) {
    runs.push_back({&k, g.dims, g.global, g.local});
  };
  if (pre) add_run(*pre_kernel, pre->geometry);
  add_run(kernel, request.geometry);
  // One run: the pre-pass and the kernel, back to back and timed together, as the runtime runs
  // them (the gap between the two counts).
  const auto launch = [&] { return context_.LaunchInOrder(runs); };
  auto phase = std::chrono::steady_clock::now();
  launch();  // warm-up, never timed: POCL generates the work-group functions here (or finds them cached)
  const double first_launch_s = SecondsSince(phase);
  phase = std::chrono::steady_clock::now();
  context_.Read(ws.buffers[ws.output], ws.scratch);
  const auto mismatch = FindMismatch(ws.scratch, ws.host[ws.output], ws.kernel->tolerance());
  const double verify_s = SecondsSince(phase);
  const auto with_times = [&](MeasureResult result, double timed_s) {
    return WithPhaseTimes(std::move(result), {compile_s, first_launch_s, verify_s}, timed_s);
  };
  if (mismatch) return with_times(MeasureResult::Failure(MeasureStatus::kWrongAnswer, *mismatch), 0);
  phase = std::chrono::steady_clock::now();
  std::vector<double> times;
  double total = 0, fastest = std::numeric_limits<double>::infinity();
  while (times.empty() || (total < request.min_time_s && static_cast<int>(times.size()) < request.max_repeats)) {
    times.push_back(launch());
    total += times.back();
    fastest = std::min(fastest, times.back());
    if (request.give_up_slower_than_s > 0 && times.size() >= kRepeatsBeforeGivingUp &&
        fastest > request.give_up_slower_than_s)
      break;
  }
  return with_times(MeasureResult::Success(std::move(times), request.flops, compile_s), SecondsSince(phase));
}

}  // namespace tt
