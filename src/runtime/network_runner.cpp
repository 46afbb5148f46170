// tensortune::NetworkRunner: a network's layers in order on one device (see
// tensortune/network.h). The kernels come from network_plan.cpp; here the buffers and the
// sequence of launches are laid out, each layer is checked once against its CPU reference, and
// the whole sequence is timed.
#include <charconv>
#include <chrono>
#include <cmath>
#include <optional>

#include "core/errors.h"
#include "core/statistics.h"
#include "ocl/cl_error.h"
#include "ocl/devices.h"
#include "ops/kernel_template.h"
#include "runtime/network_internal.h"
#include "runtime/runtime_internal.h"
#include "tensortune/layouts.h"

namespace tensortune {

using tt::runtime::OutputIndex;

struct NetworkRunner::State {
  tt::ocl::Context context;
  Runtime runtime;
  State(const tt::ocl::Device& device, const RuntimeOptions& options)
      : context(device), runtime(context.handle(), context.device_id(), options) {}
};

namespace {

// One launch of the sequence: a layer's operator, or a layout conversion before it.
struct Step {
  const Operator* op = nullptr;
  std::vector<cl_mem> buffers;
  int layer = -1;  // -1 for a conversion
};

struct Sequence {
  std::vector<tt::ocl::FloatBuffer> owned;
  std::vector<Step> steps;
};

struct DeviceTensor {
  cl_mem buffer = nullptr;
  Layout layout = Layout::kRowMajor;
  std::vector<int64_t> dims;
};

// Calls into the rest of tensortune, whose errors become the runtime's.
template <typename F>
auto Translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const tt::UserError& e) {
    throw Error(ErrorCode::kInvalidArgument, e.what());
  } catch (const tt::EnvironmentError& e) {
    throw Error(ErrorCode::kOpenCL, e.what());
  }
}

// The plain values the caller gave input `index` of a layer (empty: none), checked for size.
std::vector<float> GivenInput(const NetworkLayer& layer, const Argument& argument, size_t index) {
  if (index >= layer.inputs.size() || layer.inputs[index].empty()) return {};
  size_t plain = 1;
  for (const int64_t d : argument.dims) plain *= static_cast<size_t>(d);
  if (layer.inputs[index].size() != plain)
    throw Error(ErrorCode::kInvalidArgument, "layer " + layer.name + ": input " + std::to_string(index) + " (" +
                                                 argument.name + ") has " + std::to_string(layer.inputs[index].size()) +
                                                 " values, its shape needs " + std::to_string(plain));
  return layer.inputs[index];
}

// The buffers and launches of the network: inputs given, chained or random; a conversion step
// where a layer reads its predecessor's output in another layout.
class SequenceBuilder {
 public:
  SequenceBuilder(const tt::ocl::Context& context, tt::runtime::OperatorCache& ops, uint64_t seed)
      : context_(context), ops_(ops), rng_(seed) {}

  void AddLayer(const NetworkLayer& layer, const Operator& op, int index, LayerRun& result, int& conversions) {
    const auto& args = op.arguments();
    std::vector<cl_mem> buffers(args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      if (args[a].is_output)
        buffers[a] = Buffer(std::vector<float>(args[a].elements, NAN));
      else if (std::vector<float> given = GivenInput(layer, args[a], a); !given.empty())
        buffers[a] = Buffer(tt::runtime::DeviceData(args[a], given));
      else if (a == 0 && previous_ && previous_->dims == args[a].dims && Chain(args[a], buffers[a], conversions))
        result.chained = true;
      else
        buffers[a] = Buffer(tt::runtime::DeviceData(args[a], tt::runtime::RandomPlain(args[a], a, rng_)));
    }
    sequence_.steps.push_back({&op, buffers, index});
    for (size_t a = 0; a < args.size(); ++a)
      if (args[a].is_output) previous_ = DeviceTensor{buffers[a], args[a].layout, args[a].dims};
  }

  Sequence Take() { return std::move(sequence_); }

 private:
  cl_mem Buffer(const std::vector<float>& data) {
    sequence_.owned.push_back(context_.CreateBuffer(data.size()));
    context_.Write(sequence_.owned.back(), data);
    return sequence_.owned.back().get();
  }

  // The previous layer's output as `argument`: as it is, or converted on the device.
  bool Chain(const Argument& argument, cl_mem& buffer, int& conversions) {
    if (previous_->layout == argument.layout) {
      buffer = previous_->buffer;
      return true;
    }
    if (!tt::runtime::Convertible(previous_->layout, argument.layout)) return false;
    const Operator& convert = ops_.Conversion(previous_->layout, argument.layout, argument.dims);
    buffer = Buffer(std::vector<float>(argument.elements, NAN));
    sequence_.steps.push_back({&convert, {previous_->buffer, buffer}, -1});
    ++conversions;
    return true;
  }

  const tt::ocl::Context& context_;
  tt::runtime::OperatorCache& ops_;
  tt::Rng rng_;
  Sequence sequence_;
  std::optional<DeviceTensor> previous_;
};

// The shortest text that reads back as `x`.
std::string Shortest(float x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

// The first element off by more than 1e-3 (|reference| + the reference's RMS), or NaN.
std::optional<std::string> Compare(const std::vector<float>& got, const std::vector<float>& want, double& max_error) {
  double squares = 0;
  for (const float w : want) squares += static_cast<double>(w) * w;
  const double rms = want.empty() ? 0 : std::sqrt(squares / static_cast<double>(want.size()));
  std::optional<std::string> first;
  for (size_t i = 0; i < want.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (error > max_error || std::isnan(error)) max_error = std::isnan(error) ? INFINITY : std::max(max_error, error);
    if (!first && !(error <= 1e-3 * (std::fabs(want[i]) + rms) + 1e-30))
      first = "output[" + std::to_string(i) + "] = " + Shortest(got[i]) + ", reference " + Shortest(want[i]);
  }
  return first;
}

std::vector<float> ReadBuffer(const tt::ocl::Context& context, cl_mem buffer, size_t elements) {
  std::vector<float> data(elements);
  tt::ocl::CheckCl(clEnqueueReadBuffer(context.queue(), buffer, CL_TRUE, 0, elements * sizeof(float), data.data(), 0,
                                       nullptr, nullptr),
                   "clEnqueueReadBuffer");
  return data;
}

// One layer's output, read after its step ran, against the CPU reference on the inputs it read.
void CheckLayer(const tt::ocl::Context& context, const Step& step, const tt::Workload& workload, bool keep,
                LayerRun& result) {
  const KernelSpec& spec = step.op->spec();
  const tt::KernelTemplate* kernel = tt::FindTemplate(spec.choice.kernel_template);
  if (!kernel) result.check = "not checked: sketch unknown to this tensortune";
  if (!kernel && !keep) return;
  std::vector<std::vector<float>> inputs;
  std::vector<float> got;
  for (size_t a = 0; a < spec.arguments.size(); ++a) {
    std::vector<float> data = ReadBuffer(context, step.buffers[a], spec.arguments[a].elements);
    (spec.arguments[a].is_output ? got : inputs.emplace_back()) = std::move(data);
  }
  if (keep) result.output = ToPlain(spec.arguments[OutputIndex(spec)], got);
  if (!kernel) return;
  std::vector<const float*> pointers;
  for (const auto& in : inputs) pointers.push_back(in.data());
  std::vector<float> want(got.size());
  kernel->Reference(workload, pointers, want.data());
  const auto mismatch = Compare(got, want, result.max_abs_error);
  result.check = mismatch ? "WRONG: " + *mismatch : "ok";
  result.failed = mismatch.has_value();
}

// Each step once; each layer checked. True when every checked layer matched.
bool CheckLayers(const tt::ocl::Context& context, const Sequence& sequence, const std::vector<tt::Workload>& workloads,
                 bool keep_outputs, std::vector<LayerRun>& layers) {
  bool verified = true;
  for (const Step& step : sequence.steps) {
    step.op->Run(context.queue(), step.buffers);
    if (step.layer < 0) continue;
    const auto i = static_cast<size_t>(step.layer);
    CheckLayer(context, step, workloads[i], keep_outputs, layers[i]);
    verified = verified && !layers[i].failed;
  }
  return verified;
}

// The device time from a step's first kernel to its last; the events are released.
double StepSeconds(std::vector<cl_event>& events) {
  const double seconds = tt::ocl::ProfiledSeconds(events.front(), events.back());
  for (cl_event e : events) clReleaseEvent(e);
  events.clear();
  return seconds;
}

// Whether timing may stop: at least min_runs timed runs adding up to min_time_s, or the most
// runs allowed.
bool TimedEnough(int64_t runs, double elapsed_s, int64_t min_runs, double min_time_s) {
  return (runs >= min_runs && elapsed_s >= min_time_s) || runs >= kMaxTimedRuns;
}

// The whole sequence, timed: wall clock from the first enqueue to the queue's end, and each
// step's kernels by their profiling events; the first pass is a warm-up.
void TimeSequence(const tt::ocl::Context& context, const Sequence& sequence, const NetworkRunOptions& options,
                  NetworkRun& run) {
  const auto& steps = sequence.steps;
  std::vector<double> wall, kernels_total;
  std::vector<std::vector<double>> per_step(steps.size());
  const auto start = std::chrono::steady_clock::now();
  for (int64_t pass = 0;; ++pass) {
    std::vector<std::vector<cl_event>> events(steps.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t s = 0; s < steps.size(); ++s) {
      EnqueueOptions enqueue;
      enqueue.events = &events[s];
      steps[s].op->Enqueue(context.queue(), steps[s].buffers, enqueue);
    }
    tt::ocl::CheckCl(clFinish(context.queue()), "clFinish");
    const auto t1 = std::chrono::steady_clock::now();
    double kernels = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
      const double seconds = StepSeconds(events[s]);
      per_step[s].push_back(seconds);
      kernels += seconds;
    }
    if (pass == 0) continue;
    wall.push_back(std::chrono::duration<double>(t1 - t0).count());
    kernels_total.push_back(kernels);
    const double elapsed = std::chrono::duration<double>(t1 - start).count();
    const auto runs = static_cast<int64_t>(wall.size());
    if (TimedEnough(runs, elapsed, options.min_runs, options.min_time_s)) break;
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    if (per_step[s].size() > 1) per_step[s].erase(per_step[s].begin());  // the warm-up
    const double median = tt::Median(per_step[s]);
    if (steps[s].layer >= 0)
      run.layers[static_cast<size_t>(steps[s].layer)].measured_time_s = median;
    else
      run.conversions_latency_s += median;
  }
  run.runs = wall.size();
  run.measured_latency_s = tt::Median(wall);
  run.kernels_latency_s = tt::Median(kernels_total);
}

// Each layer's kernels again on their own, back to back after one warm-up launch: its weights
// and activations stay in the caches, as when a library times one layer, where in the sequence
// the layers before it have evicted them.
void TimeLayersAlone(const tt::ocl::Context& context, const Sequence& sequence, const NetworkRunOptions& options,
                     NetworkRun& run) {
  for (const Step& step : sequence.steps) {
    if (step.layer < 0) continue;
    std::vector<double> times;
    const auto start = std::chrono::steady_clock::now();
    for (int64_t launch = 0;; ++launch) {
      std::vector<cl_event> events;
      EnqueueOptions enqueue;
      enqueue.events = &events;
      step.op->Enqueue(context.queue(), step.buffers, enqueue);
      tt::ocl::CheckCl(clFinish(context.queue()), "clFinish");
      const double seconds = StepSeconds(events);
      if (launch == 0) continue;
      times.push_back(seconds);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const auto runs = static_cast<int64_t>(times.size());
      if (TimedEnough(runs, elapsed, options.min_runs, options.alone_min_time_s)) break;
    }
    run.layers[static_cast<size_t>(step.layer)].alone_time_s = tt::Median(times);
  }
}

LayerRun Described(const NetworkLayer& layer, const tt::Workload& workload, const Operator& op) {
  LayerRun result;
  result.name = layer.name;
  result.workload = workload.Key();
  result.choice = op.choice();
  result.input_layout = op.arguments().front().layout;
  const Argument& output = op.arguments()[OutputIndex(op.spec())];
  result.output_layout = output.layout;
  result.output_dims = output.dims;
  return result;
}

PrepareOptions LayerPrepare(const NetworkRunOptions& options) {
  PrepareOptions prepare = options.prepare;
  prepare.kernel_template.clear();  // each layer's best, whichever sketch
  return prepare;
}

NetworkRun RunLayers(const NetworkRunner::State& state, const std::vector<NetworkLayer>& layers,
                     const tt::runtime::LayerKernels& kernels, const NetworkRunOptions& options) {
  if (layers.empty()) throw Error(ErrorCode::kInvalidArgument, "a network without layers");
  std::vector<tt::Workload> workloads;
  for (const NetworkLayer& layer : layers) workloads.push_back(tt::runtime::ToWorkload(layer.workload));
  tt::runtime::OperatorCache ops(state.runtime);
  tt::Rng timing_rng(options.seed + 1);
  const tt::runtime::NetworkPlan plan = PlanNetwork(workloads, kernels, ops, state.context, timing_rng);

  NetworkRun run;
  run.device = state.runtime.device();
  run.layouts_weighed = plan.weighed;
  run.layers_replanned = plan.layers_replanned;
  run.conversions_fastest_each = plan.conversions_fastest_each;
  SequenceBuilder builder(state.context, ops, options.seed);
  for (size_t i = 0; i < layers.size(); ++i) {
    run.layers.push_back(Described(layers[i], workloads[i], *plan.layer_ops[i]));
    builder.AddLayer(layers[i], *plan.layer_ops[i], static_cast<int>(i), run.layers.back(), run.conversions);
  }
  const Sequence sequence = builder.Take();
  run.verified = CheckLayers(state.context, sequence, workloads, options.keep_outputs, run.layers);
  if (run.verified) TimeSequence(state.context, sequence, options, run);
  if (run.verified && options.alone_min_time_s > 0) TimeLayersAlone(state.context, sequence, options, run);
  run.cache = state.runtime.cache_stats();
  return run;
}

}  // namespace

NetworkRunner::NetworkRunner(const std::string& device, RuntimeOptions options)
    : state_(Translated([&] { return std::make_unique<State>(tt::ocl::SelectDevice(device), options); })) {}

NetworkRunner::~NetworkRunner() = default;
NetworkRunner::NetworkRunner(NetworkRunner&&) noexcept = default;
NetworkRunner& NetworkRunner::operator=(NetworkRunner&&) noexcept = default;

const DeviceDescription& NetworkRunner::device() const { return state_->runtime.device(); }

NetworkRun NetworkRunner::Run(const std::vector<NetworkLayer>& layers, const ConfigSource& source,
                              const NetworkRunOptions& options) const {
  const DeviceDescription& device = state_->runtime.device();
  const tt::runtime::LayerKernels kernels{
      [&](const Workload& w, const PrepareOptions& prepare) { return Choose(w, source, device, prepare); },
      LayerPrepare(options), !options.fastest_each};
  return Translated([&] { return RunLayers(*state_, layers, kernels, options); });
}

NetworkRun NetworkRunner::Run(const std::vector<NetworkLayer>& layers, const KernelPack& pack,
                              const NetworkRunOptions& options) const {
  const DeviceDescription& device = state_->runtime.device();
  const tt::runtime::LayerKernels kernels{
      [&](const Workload& w, const PrepareOptions& prepare) { return Choose(w, pack, device, prepare); },
      LayerPrepare(options), false};
  return Translated([&] { return RunLayers(*state_, layers, kernels, options); });
}

NetworkRun NetworkRunner::RunUntuned(const std::vector<NetworkLayer>& layers, const NetworkRunOptions& options) const {
  const DeviceDescription& device = state_->runtime.device();
  const tt::runtime::LayerKernels kernels{
      [&](const Workload& w, const PrepareOptions& prepare) {
        KernelSpec spec =
            tt::runtime::DefaultSpec(tt::runtime::ToWorkload(w), tt::runtime::ToDeviceInfo(device),
                                     prepare.kernel_template, "asked for", tt::runtime::DefaultKind::kUntuned);
        spec.choice.note = tt::runtime::Describe(spec.choice);
        return spec;
      },
      LayerPrepare(options), false};
  return Translated([&] { return RunLayers(*state_, layers, kernels, options); });
}

}  // namespace tensortune
