// `tensortune run-network`: a network's tuned layers run in network order on the device, with
// real buffers, through tensortune::runtime. Inputs and weights are random; a layer whose input
// has the shape of the previous layer's output reads that output (converted on the device when
// the two sketches want different layouts). Each layer is checked once against the CPU
// reference; then the whole sequence is timed and printed next to tune-network's estimate.
// Where a layer's recorded kernels want different activation layouts (NCHW or NCHW16c), each
// is timed here with the conversions between them, and the layers run the plan of least total
// time (cli/layout_plan.h) rather than each its fastest kernel alone.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/kernel_pack_commands.h"
#include "cli/layout_plan.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "core/rng.h"
#include "core/statistics.h"
#include "networks/network.h"
#include "ocl/cl_error.h"
#include "ocl/cl_handle.h"
#include "ocl/devices.h"
#include "runtime/runtime_internal.h"
#include "tensortune/history.h"
#include "tensortune/layouts.h"

namespace tt {
namespace {

constexpr int64_t kMaxRuns = 10'000;

using MemHandle = ocl::ClHandle<cl_mem, clReleaseMemObject>;

// One layer as it occurs in the network (a repeated layer occurs several times).
struct Instance {
  std::string name;
  Workload workload;
};

// One launch of the sequence: a layer's operator, or a layout conversion before it.
struct Step {
  const tensortune::Operator* op = nullptr;
  std::vector<cl_mem> buffers;
  int layer = -1;     // index into the instances; -1 for a conversion
  std::string label;  // for a conversion: "NCHW -> NCHW16c"
};

struct LayerResult {
  std::string check = "-";  // "ok", "not checked: ...", or the mismatch
  bool failed = false;
  double max_error = 0;
  double measured_s = 0;  // median device time of its kernels
  bool chained = false;   // its input is the previous layer's output
};

struct DeviceTensor {
  cl_mem buffer = nullptr;
  tensortune::Layout layout = tensortune::Layout::kRowMajor;
  std::vector<int64_t> dims;
};

void Check(cl_int status, const std::string& what) { ocl::CheckCl(status, what); }

std::vector<Instance> Instances(const Network& network, int64_t batch) {
  // NetworkTasks checks every layer at this batch size; the instances follow the layers.
  const auto tasks = NetworkTasks(network, batch);
  std::vector<Instance> instances;
  for (const NetworkLayer& layer : network.layers) {
    const NetworkTask* task = nullptr;
    for (const auto& t : tasks)
      if (std::find(t.layers.begin(), t.layers.end(), layer.name) != t.layers.end()) task = &t;
    if (!task) throw UserError("layer " + layer.name + " has no task");
    for (int64_t r = 0; r < layer.repeat; ++r)
      instances.push_back({layer.repeat > 1 ? layer.name + "#" + std::to_string(r + 1) : layer.name, task->workload});
  }
  return instances;
}

// Random values for an input: activations in [-1, 1), weights scaled by their fan-in so that
// activations keep their magnitude from layer to layer.
std::vector<float> RandomPlain(const tensortune::Argument& a, size_t argument, Rng& rng) {
  size_t elements = 1;
  for (const int64_t d : a.dims) elements *= static_cast<size_t>(d);
  double scale = 1;
  if (argument == 1 && a.dims.size() >= 2) {  // weights: OIHW (fan-in I*H*W) or K x N (fan-in K)
    double fan_in = 1;
    if (a.dims.size() == 4)
      fan_in = static_cast<double>(a.dims[1] * a.dims[2] * a.dims[3]);
    else
      fan_in = static_cast<double>(a.dims[a.dims.size() - 2]);
    scale = std::sqrt(3.0 / fan_in);
  }
  std::vector<float> data(elements);
  for (float& x : data) x = static_cast<float>((2 * rng.Uniform() - 1) * scale);
  return data;
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
      first = fmt::format("output[{}] = {}, reference {}", i, got[i], want[i]);
  }
  return first;
}

class Session {
 public:
  explicit Session(const std::string& device_spec) {
    const ocl::Device device = ocl::SelectDevice(device_spec);
    info_ = device.info;
    device_ = device.id;
    cl_int status = CL_SUCCESS;
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(device.platform), 0};
    context_ = decltype(context_)(clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status));
    Check(status, "clCreateContext");
    queue_ = decltype(queue_)(clCreateCommandQueue(context_.get(), device.id, CL_QUEUE_PROFILING_ENABLE, &status));
    Check(status, "clCreateCommandQueue");
  }

  cl_context context() const { return context_.get(); }
  cl_device_id device() const { return device_; }
  cl_command_queue queue() const { return queue_.get(); }
  const DeviceInfo& info() const { return info_; }

  cl_mem Buffer(const std::vector<float>& data) {
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context_.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(float),
                                const_cast<float*>(data.data()), &status);
    Check(status, "clCreateBuffer(" + std::to_string(data.size()) + " floats)");
    buffers_.emplace_back(mem);
    return mem;
  }

  std::vector<float> Read(cl_mem mem, size_t elements) const {
    std::vector<float> data(elements);
    Check(
        clEnqueueReadBuffer(queue_.get(), mem, CL_TRUE, 0, elements * sizeof(float), data.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
    return data;
  }

 private:
  DeviceInfo info_;
  cl_device_id device_ = nullptr;
  ocl::ClHandle<cl_context, clReleaseContext> context_;
  ocl::ClHandle<cl_command_queue, clReleaseCommandQueue> queue_;
  std::vector<MemHandle> buffers_;
};

double EventSeconds(cl_event first, cl_event last) {
  cl_ulong start = 0, end = 0;
  Check(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
        "clGetEventProfilingInfo");
  Check(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "clGetEventProfilingInfo");
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0;
}

std::string Ms(double seconds) { return seconds > 0 ? fmt::format("{:.4g}", seconds * 1e3) : "-"; }

size_t OutputIndex(const tensortune::KernelSpec& spec) {
  for (size_t a = 0; a < spec.arguments.size(); ++a)
    if (spec.arguments[a].is_output) return a;
  return spec.arguments.size() - 1;
}

LayoutCandidate LayoutsOf(const tensortune::KernelSpec& spec) {
  return {spec.arguments.front().layout, spec.arguments[OutputIndex(spec)].layout, 0};
}

bool SameLayouts(const LayoutCandidate& a, const LayoutCandidate& b) {
  return a.input == b.input && a.output == b.output;
}

// A layer reads its predecessor's output through a device conversion (NCHW <-> NCHW16c).
bool Convertible(tensortune::Layout from, tensortune::Layout to) {
  return from != to && tensortune::PlainLayout(from) == tensortune::PlainLayout(to) &&
         tensortune::PlainLayout(to) == tensortune::Layout::kNCHW;
}

// The kernels of a workload worth weighing in a layout plan: the source's best, and for every
// other pair of activation layouts the fastest exact record of a sketch that has it.
std::vector<tensortune::KernelSpec> LayoutCandidates(const Workload& w, const tensortune::ConfigSource& source,
                                                     const tensortune::DeviceDescription& device,
                                                     const tensortune::PrepareOptions& prepare) {
  const tensortune::Workload pw = runtime::ToPublic(w);
  std::vector<tensortune::KernelSpec> kept{tensortune::Choose(pw, source, device, prepare)};
  for (const KernelTemplate* t : ApplicableTemplates(w)) {
    if (t->name() == kept.front().choice.kernel_template) continue;
    tensortune::KernelSpec spec;
    try {
      spec = tensortune::Choose(pw, source, device, {std::string(t->name()), tensortune::Origin::kExact});
    } catch (const tensortune::Error&) {
      continue;  // no exact record of this sketch
    }
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const tensortune::KernelSpec& k) {
      return SameLayouts(LayoutsOf(k), LayoutsOf(spec));
    });
    if (same == kept.end())
      kept.push_back(std::move(spec));
    else if (same != kept.begin() && spec.choice.recorded_time_s < same->choice.recorded_time_s)
      *same = std::move(spec);
  }
  return kept;
}

// Median device time of `op` over five runs after a warm-up, on buffers of its own.
double TimeAlone(const Session& session, const tensortune::Operator& op, Rng& rng) {
  std::vector<MemHandle> owned;
  std::vector<cl_mem> buffers;
  for (size_t a = 0; a < op.arguments().size(); ++a) {
    const auto& arg = op.arguments()[a];
    std::vector<float> data = arg.is_output ? std::vector<float>(arg.elements, 0.0f)
                                            : tensortune::ToLayout(RandomPlain(arg, a, rng), arg.layout, arg.dims);
    if (data.size() != arg.elements) data.resize(arg.elements, 0.0f);
    cl_int status = CL_SUCCESS;
    owned.emplace_back(clCreateBuffer(session.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      data.size() * sizeof(float), data.data(), &status));
    Check(status, "clCreateBuffer");
    buffers.push_back(owned.back().get());
  }
  op.Run(session.queue(), buffers);  // the first launch is not timed
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    std::vector<cl_event> events;
    tensortune::EnqueueOptions enqueue;
    enqueue.events = &events;
    op.Enqueue(session.queue(), buffers, enqueue);
    Check(clFinish(session.queue()), "clFinish");
    times.push_back(EventSeconds(events.front(), events.back()));
    for (cl_event e : events) clReleaseEvent(e);
  }
  return Median(times);
}

int Run(const RunNetworkOptions& o, std::ostream& out, std::ostream& err) {
  CheckCount("--batch", o.batch, kMaxNetworkBatch);
  CheckCount("--min-runs", o.min_runs, kMaxRuns);
  CheckSeconds("--min-time", o.min_time_s, true, kMaxMinTimeSeconds);
  if (o.db.empty() == o.pack.empty())
    throw UserError("give either --db (a history database) or --pack (a kernel pack)");
  const Network network = LoadNetwork(o.network);
  const std::vector<Instance> instances = Instances(network, o.batch);
  std::error_code ec;
  if (!o.db.empty() && !std::filesystem::is_regular_file(o.db, ec))
    throw UserError("database " + o.db + " does not exist");

  // Sources first: a bad database or pack is refused before the device is opened.
  std::shared_ptr<const tensortune::ConfigSource> history;
  std::optional<tensortune::KernelPack> pack;
  if (!o.db.empty())
    history = tensortune::OpenHistory(o.db);
  else
    pack = tensortune::KernelPack::Load(o.pack);
  const std::string source_name = history ? o.db : "kernel pack " + o.pack;

  Session session(o.device);
  tensortune::RuntimeOptions runtime_options;
  runtime_options.binary_cache = o.binary_cache;
  const tensortune::Runtime runtime(session.context(), session.device(), runtime_options);
  tensortune::PrepareOptions prepare;
  if (o.exact_only) prepare.least_trusted = tensortune::Origin::kExact;
  prepare.trust_pack_source = o.trust_pack_source;

  // The kernels each distinct workload could run: a pack's kernel; a history's best and, unless
  // --fastest-each, the fastest recorded kernel of each other pair of activation layouts.
  std::map<std::string, std::vector<tensortune::KernelSpec>> candidates;
  for (const Instance& instance : instances) {
    const std::string key = instance.workload.Key();
    if (candidates.count(key)) continue;
    const tensortune::Workload w = runtime::ToPublic(instance.workload);
    if (history && !o.fastest_each)
      candidates[key] = LayoutCandidates(instance.workload, *history, runtime.device(), prepare);
    else
      candidates[key] = {history ? tensortune::Choose(w, *history, runtime.device(), prepare)
                                 : tensortune::Choose(w, *pack, runtime.device(), prepare)};
  }

  // One operator per distinct kernel, and one per conversion.
  std::map<std::string, tensortune::Operator> ops, conversions;
  const auto op_of = [&](const tensortune::KernelSpec& spec) -> const tensortune::Operator& {
    const std::string key = spec.workload + "|" + spec.choice.kernel_template + "|" + spec.choice.config_key;
    auto it = ops.find(key);
    if (it == ops.end()) it = ops.emplace(key, runtime.Prepare(spec)).first;
    return it->second;
  };
  const auto conversion_of = [&](tensortune::Layout from, tensortune::Layout to,
                                 const std::vector<int64_t>& dims) -> const tensortune::Operator& {
    const std::string key =
        fmt::format("{}>{}:{}", tensortune::ToString(from), tensortune::ToString(to), fmt::join(dims, ","));
    auto it = conversions.find(key);
    if (it == conversions.end()) it = conversions.emplace(key, runtime.PrepareConversion(from, to, dims)).first;
    return it->second;
  };

  // The layout plan: layers with kernels of more than one layout pair time them here, with the
  // conversions they would need, and the chain takes the least total time.
  std::vector<ChainLayer> chain(instances.size());
  const auto kernels_of = [&](size_t layer) -> const auto& { return candidates.at(instances[layer].workload.Key()); };
  Rng timing_rng(o.seed + 1);
  std::map<const tensortune::Operator*, double> alone_s;
  const auto time_alone = [&](const tensortune::Operator& op) {
    if (!alone_s.count(&op)) alone_s[&op] = TimeAlone(session, op, timing_rng);
    return alone_s[&op];
  };
  for (size_t i = 0; i < instances.size(); ++i) {
    for (const tensortune::KernelSpec& spec : kernels_of(i)) {
      LayoutCandidate c = LayoutsOf(spec);
      if (kernels_of(i).size() > 1) c.seconds = time_alone(op_of(spec));
      chain[i].candidates.push_back(c);
    }
    if (i > 0) {
      const auto& before = kernels_of(i - 1).front();
      chain[i].reads_previous =
          before.arguments[OutputIndex(before)].dims == kernels_of(i).front().arguments.front().dims;
    }
  }
  const auto conversion_cost = [&](size_t layer, tensortune::Layout from, tensortune::Layout to) {
    return Convertible(from, to) ? time_alone(conversion_of(from, to, kernels_of(layer).front().arguments.front().dims))
                                 : 0.0;
  };
  const bool weighed =
      std::any_of(chain.begin(), chain.end(), [](const ChainLayer& l) { return l.candidates.size() > 1; });
  const std::vector<size_t> fastest_each(instances.size(), 0);
  const std::vector<size_t> plan = weighed ? PlanLayouts(chain, conversion_cost) : fastest_each;
  const auto conversions_in = [&](const std::vector<size_t>& p) {
    int count = 0;
    for (size_t i = 1; i < chain.size(); ++i)
      count += chain[i].reads_previous &&
               Convertible(chain[i - 1].candidates[p[i - 1]].output, chain[i].candidates[p[i]].input);
    return count;
  };
  const int conversions_fastest_each = conversions_in(fastest_each);
  std::vector<const tensortune::Operator*> layer_ops(instances.size());
  int layers_replanned = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    layer_ops[i] = &op_of(kernels_of(i)[plan[i]]);
    layers_replanned += plan[i] != 0;
  }
  std::map<std::string, const tensortune::Operator*> used;  // the kernels the network runs, by workload
  for (size_t i = 0; i < instances.size(); ++i)
    used[instances[i].workload.Key() + "|" + layer_ops[i]->choice().kernel_template] = layer_ops[i];

  // Buffers and the sequence of launches.
  Rng rng(o.seed);
  std::vector<Step> steps;
  std::vector<LayerResult> results(instances.size());
  std::optional<DeviceTensor> previous;
  int conversion_count = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    const tensortune::Operator& op = *layer_ops[i];
    const auto& args = op.arguments();
    std::vector<cl_mem> buffers(args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      if (args[a].is_output) {
        buffers[a] = session.Buffer(std::vector<float>(args[a].elements, NAN));
        continue;
      }
      if (a == 0 && previous && previous->dims == args[a].dims) {
        if (previous->layout == args[a].layout) {
          buffers[a] = previous->buffer;
          results[i].chained = true;
          continue;
        }
        if (Convertible(previous->layout, args[a].layout)) {
          const tensortune::Operator& convert = conversion_of(previous->layout, args[a].layout, args[a].dims);
          buffers[a] = session.Buffer(std::vector<float>(args[a].elements, NAN));
          steps.push_back(
              {&convert,
               {previous->buffer, buffers[a]},
               -1,
               fmt::format("{} -> {}", tensortune::ToString(previous->layout), tensortune::ToString(args[a].layout))});
          ++conversion_count;
          results[i].chained = true;
          continue;
        }
      }
      buffers[a] = session.Buffer(tensortune::ToLayout(RandomPlain(args[a], a, rng), args[a].layout, args[a].dims));
    }
    steps.push_back({&op, buffers, static_cast<int>(i), ""});
    for (size_t a = 0; a < args.size(); ++a)
      if (args[a].is_output) previous = DeviceTensor{buffers[a], args[a].layout, args[a].dims};
  }

  // Each layer once, checked against the CPU reference on the inputs it actually read.
  bool failed = false;
  for (const Step& step : steps) {
    step.op->Run(session.queue(), step.buffers);
    if (step.layer < 0) continue;
    LayerResult& result = results[static_cast<size_t>(step.layer)];
    const tensortune::KernelSpec& spec = step.op->spec();
    const KernelTemplate* kernel = FindTemplate(spec.choice.kernel_template);
    if (!kernel) {
      result.check = "not checked: sketch unknown to this tensortune";
      continue;
    }
    std::vector<std::vector<float>> inputs;
    std::vector<float> got;
    for (size_t a = 0; a < spec.arguments.size(); ++a) {
      std::vector<float> data = session.Read(step.buffers[a], spec.arguments[a].elements);
      (spec.arguments[a].is_output ? got : inputs.emplace_back()) = std::move(data);
    }
    std::vector<const float*> pointers;
    for (const auto& in : inputs) pointers.push_back(in.data());
    std::vector<float> want(got.size());
    kernel->Reference(instances[static_cast<size_t>(step.layer)].workload, pointers, want.data());
    if (const auto mismatch = Compare(got, want, result.max_error)) {
      result.check = "WRONG: " + *mismatch;
      result.failed = failed = true;
    } else {
      result.check = "ok";
    }
  }

  // The whole sequence, timed: wall clock from the first enqueue to the queue's end, and each
  // layer's kernels by their profiling events.
  std::vector<double> wall, kernels_total;
  std::vector<std::vector<double>> per_step(steps.size());
  const auto start = std::chrono::steady_clock::now();
  for (int64_t run = 0; !failed; ++run) {
    std::vector<std::vector<cl_event>> events(steps.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t s = 0; s < steps.size(); ++s) {
      tensortune::EnqueueOptions enqueue;
      enqueue.events = &events[s];
      steps[s].op->Enqueue(session.queue(), steps[s].buffers, enqueue);
    }
    Check(clFinish(session.queue()), "clFinish");
    const auto t1 = std::chrono::steady_clock::now();
    double kernels = 0;
    for (size_t s = 0; s < steps.size(); ++s) {
      const double seconds = EventSeconds(events[s].front(), events[s].back());
      for (cl_event e : events[s]) clReleaseEvent(e);
      per_step[s].push_back(seconds);
      kernels += seconds;
    }
    if (run == 0) continue;  // warm-up
    wall.push_back(std::chrono::duration<double>(t1 - t0).count());
    kernels_total.push_back(kernels);
    const double elapsed = std::chrono::duration<double>(t1 - start).count();
    if (static_cast<int64_t>(wall.size()) >= o.min_runs && elapsed >= o.min_time_s) break;
    if (static_cast<int64_t>(wall.size()) >= kMaxRuns) break;
  }
  double conversions_s = 0;
  for (size_t s = 0; s < steps.size(); ++s) {
    if (per_step[s].size() > 1) per_step[s].erase(per_step[s].begin());  // the warm-up
    const double median = Median(per_step[s]);
    if (steps[s].layer >= 0)
      results[static_cast<size_t>(steps[s].layer)].measured_s = median;
    else
      conversions_s += median;
  }

  double estimated = 0;
  int estimated_layers = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    const auto& c = layer_ops[i]->choice();
    if (c.origin == tensortune::Origin::kExact && c.recorded_time_s > 0) {
      estimated += c.recorded_time_s;
      ++estimated_layers;
    }
  }
  const double measured = Median(wall), kernels_s = Median(kernels_total);

  if (o.json) {
    nlohmann::json layers = nlohmann::json::array();
    for (size_t i = 0; i < instances.size(); ++i) {
      const auto& op = *layer_ops[i];
      layers.push_back(
          {{"layer", instances[i].name},
           {"workload", instances[i].workload.Key()},
           {"template", op.choice().kernel_template},
           {"config_key", op.choice().config_key},
           {"origin", tensortune::ToString(op.choice().origin)},
           {"note", op.choice().note},
           {"chained", results[i].chained},
           {"check", results[i].check},
           {"input_layout", tensortune::ToString(op.arguments().front().layout)},
           {"output_layout", tensortune::ToString(op.arguments()[OutputIndex(op.spec())].layout)},
           {"max_abs_error", results[i].max_error},
           {"recorded_time_s", op.choice().origin == tensortune::Origin::kExact ? op.choice().recorded_time_s : 0},
           {"measured_time_s", results[i].measured_s}});
    }
    nlohmann::json j = {{"network", network.name},
                        {"batch", o.batch},
                        {"device", session.info().name},
                        {"source", source_name},
                        {"layers", layers},
                        {"conversions", conversion_count},
                        {"layout_plan",
                         {{"weighed", weighed},
                          {"layers_replanned", layers_replanned},
                          {"conversions_fastest_each", conversions_fastest_each}}},
                        {"verified", !failed},
                        {"runs", wall.size()},
                        {"measured_latency_s", failed ? nlohmann::json(nullptr) : nlohmann::json(measured)},
                        {"kernels_latency_s", failed ? nlohmann::json(nullptr) : nlohmann::json(kernels_s)},
                        {"conversions_latency_s", conversions_s},
                        {"estimated_latency_s", estimated},
                        {"estimated_layers", estimated_layers},
                        {"layers_total", instances.size()},
                        {"programs_built", runtime.cache_stats().built},
                        {"programs_from_disk", runtime.cache_stats().loaded_from_disk}};
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format(
        "{} (batch {}) on {}: {} layers, {} kernels and {} layout conversions from {}\n\n"
        "| # | layer | workload | sketch | origin | input | check | estimated ms | measured ms |\n"
        "|---|---|---|---|---|---|---|---|---|\n",
        network.name, o.batch, session.info().name, instances.size(), used.size(), conversion_count, source_name);
    for (size_t i = 0; i < instances.size(); ++i) {
      const auto& c = layer_ops[i]->choice();
      out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", i, instances[i].name,
                         instances[i].workload.Key(), c.kernel_template, tensortune::ToString(c.origin),
                         results[i].chained ? "previous" : "random", results[i].check,
                         Ms(c.origin == tensortune::Origin::kExact ? c.recorded_time_s : 0), Ms(results[i].measured_s));
    }
    int fallbacks = 0;
    for (const auto& [key, op] : used) fallbacks += op->choice().origin != tensortune::Origin::kExact;
    if (fallbacks > 0)
      out << fmt::format("\n{} of {} kernels are fallbacks (no verified trial of their own workload on this device):\n",
                         fallbacks, used.size());
    for (const auto& [key, op] : used)
      if (op->choice().origin != tensortune::Origin::kExact) out << "  " << key << ": " << op->choice().note << "\n";
    if (weighed)
      out << fmt::format(
          "\nlayout plan: {} of {} layers run a kernel other than their fastest alone, so that the "
          "network runs {} layout conversions instead of {} (kernels and conversions timed here; "
          "--fastest-each turns this off)\n",
          layers_replanned, instances.size(), conversion_count, conversions_fastest_each);
  }
  if (failed) {
    err << "tensortune: a layer's output differs from the CPU reference (see the check column); no latency is "
           "reported\n";
    return 1;
  }
  if (!o.json) {
    out << fmt::format(
        "\nmeasured latency: {:.3f} ms (wall clock of the whole sequence, median of {} runs; its "
        "kernels {:.3f} ms, of which layout conversions {:.3f} ms)\n",
        measured * 1e3, wall.size(), kernels_s * 1e3, conversions_s * 1e3);
    if (estimated_layers > 0)
      out << fmt::format(
          "estimated latency (tune-network: the sum of recorded best times): {:.3f} ms over {} of {} "
          "layers{}; measured / estimated {:.2f}\n",
          estimated * 1e3, estimated_layers, instances.size(),
          estimated_layers < static_cast<int>(instances.size()) ? " (fallbacks have no estimate)" : "",
          measured / estimated);
    else
      out << "estimated latency: none (no layer has a verified trial of its own workload on this device)\n";
  }
  return 0;
}

}  // namespace

int RunRunNetwork(const RunNetworkOptions& o, std::ostream& out, std::ostream& err) {
  try {
    return Run(o, out, err);
  } catch (const tensortune::Error& e) {
    using tensortune::ErrorCode;
    switch (e.code()) {
      case ErrorCode::kMissingWorkload:
      case ErrorCode::kUnknownDevice:
        err << "tensortune: " << e.what() << "\n";
        return 1;
      case ErrorCode::kOpenCL:
      case ErrorCode::kBuildFailed:
        throw EnvironmentError(e.what());
      default:
        throw UserError(e.what());
    }
  }
}

}  // namespace tt
