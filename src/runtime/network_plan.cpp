// Which kernel each layer of a network runs: its workload's candidates (the source's best, and
// the fastest exact record of every other activation-layout pair), each timed alone where a
// layer has several (in interleaved rounds with the conversions between them), and the layout
// plan of least total time over the chain.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/statistics.h"
#include "ocl/cl_error.h"
#include "ops/kernel_template.h"
#include "runtime/layout_plan.h"
#include "runtime/network_internal.h"
#include "runtime/runtime_internal.h"
#include "tensortune/layouts.h"

namespace tt::runtime {

using tensortune::KernelSpec;
using tensortune::Layout;
using tensortune::Operator;

size_t OutputIndex(const KernelSpec& spec) {
  for (size_t a = 0; a < spec.arguments.size(); ++a)
    if (spec.arguments[a].is_output) return a;
  return spec.arguments.size() - 1;
}

bool Convertible(Layout from, Layout to) {
  return from != to && tensortune::PlainLayout(from) == tensortune::PlainLayout(to) &&
         tensortune::PlainLayout(to) == Layout::kNCHW;
}

std::vector<float> RandomPlain(const tensortune::Argument& a, size_t index, Rng& rng) {
  size_t elements = 1;
  for (const int64_t d : a.dims) elements *= static_cast<size_t>(d);
  double scale = 1;
  if (index == 1 && a.dims.size() >= 2) {  // weights: OIHW (fan-in I*H*W) or K x N (fan-in K)
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

std::vector<float> DeviceData(const tensortune::Argument& argument, const std::vector<float>& plain) {
  std::vector<float> data = tensortune::ToLayout(plain, argument.layout, argument.dims);
  if (data.size() != argument.elements) data.resize(argument.elements, 0.0f);
  return data;
}

const Operator& OperatorCache::Of(const KernelSpec& spec) {
  const std::string key = spec.workload + "|" + spec.choice.kernel_template + "|" + spec.choice.config_key;
  auto it = ops_.find(key);
  if (it == ops_.end()) it = ops_.emplace(key, runtime_.Prepare(spec)).first;
  return it->second;
}

const Operator& OperatorCache::Conversion(Layout from, Layout to, const std::vector<int64_t>& dims) {
  std::string key = std::string(tensortune::ToString(from)) + ">" + tensortune::ToString(to) + ":";
  for (const int64_t d : dims) key += std::to_string(d) + ",";
  auto it = conversions_.find(key);
  if (it == conversions_.end()) it = conversions_.emplace(key, runtime_.PrepareConversion(from, to, dims)).first;
  return it->second;
}

namespace {

LayoutCandidate LayoutsOf(const KernelSpec& spec) {
  return {spec.arguments.front().layout, spec.arguments[OutputIndex(spec)].layout, 0};
}

bool SameLayouts(const LayoutCandidate& a, const LayoutCandidate& b) {
  return a.input == b.input && a.output == b.output;
}

// The kernels of a workload worth weighing in a layout plan: the source's best, and for every
// other pair of activation layouts the fastest exact record of a sketch that has it.
std::vector<KernelSpec> Candidates(const Workload& w, const LayerKernels& kernels) {
  const tensortune::Workload pw = ToPublic(w);
  std::vector<KernelSpec> kept{kernels.choose(pw, kernels.prepare)};
  if (!kernels.weigh_layouts) return kept;
  for (const KernelTemplate* t : ApplicableTemplates(w)) {
    if (t->name() == kept.front().choice.kernel_template) continue;
    KernelSpec spec;
    try {
      spec = kernels.choose(pw, {std::string(t->name()), tensortune::Origin::kExact});
    } catch (const tensortune::Error&) {
      continue;  // no exact record of this sketch
    }
    const auto same = std::find_if(kept.begin(), kept.end(),
                                   [&](const KernelSpec& k) { return SameLayouts(LayoutsOf(k), LayoutsOf(spec)); });
    if (same == kept.end())
      kept.push_back(std::move(spec));
    else if (same != kept.begin() && spec.choice.recorded_time_s < same->choice.recorded_time_s)
      *same = std::move(spec);
  }
  return kept;
}

// Rounds of the plan's timing (LeastOverInterleavedRounds): each op is timed once per round.
constexpr int kPlanTimingRounds = 3;

// Median device time of `op` over five runs after a warm-up, on buffers of its own.
double TimeAlone(const ocl::Context& context, const Operator& op, Rng& rng) {
  std::vector<ocl::FloatBuffer> owned;
  std::vector<cl_mem> buffers;
  for (size_t a = 0; a < op.arguments().size(); ++a) {
    const auto& arg = op.arguments()[a];
    const std::vector<float> data =
        arg.is_output ? std::vector<float>(arg.elements, 0.0f) : DeviceData(arg, RandomPlain(arg, a, rng));
    owned.push_back(context.CreateBuffer(data.size()));
    context.Write(owned.back(), data);
    buffers.push_back(owned.back().get());
  }
  op.Run(context.queue(), buffers);  // the first launch is not timed
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    std::vector<cl_event> events;
    tensortune::EnqueueOptions enqueue;
    enqueue.events = &events;
    op.Enqueue(context.queue(), buffers, enqueue);
    ocl::CheckCl(clFinish(context.queue()), "clFinish");
    times.push_back(ocl::ProfiledSeconds(events.front(), events.back()));
    for (cl_event e : events) clReleaseEvent(e);
  }
  return Median(times);
}

// Plans with the layers that read their predecessor's output and convert its layout.
int ConversionsIn(const std::vector<ChainLayer>& chain, const std::vector<size_t>& plan) {
  int count = 0;
  for (size_t i = 1; i < chain.size(); ++i)
    count += chain[i].reads_previous &&
             Convertible(chain[i - 1].candidates[plan[i - 1]].output, chain[i].candidates[plan[i]].input);
  return count;
}

}  // namespace

NetworkPlan PlanNetwork(const std::vector<Workload>& layers, const LayerKernels& kernels, OperatorCache& ops,
                        const ocl::Context& context, Rng& timing_rng) {
  std::map<std::string, std::vector<KernelSpec>> candidates;  // by workload key
  for (const Workload& w : layers)
    if (!candidates.count(w.Key())) candidates[w.Key()] = Candidates(w, kernels);
  const auto kernels_of = [&](size_t layer) -> const auto& { return candidates.at(layers[layer].Key()); };

  // Every operator the plan weighs (the candidates of layers that have several, the conversions
  // between neighbouring candidates) is timed in interleaved rounds, so that a burst of load on
  // a shared machine does not decide between two kernels.
  std::vector<const Operator*> weighed_ops;
  std::map<const Operator*, size_t> index_of;
  const auto weigh = [&](const Operator& op) {
    if (index_of.emplace(&op, weighed_ops.size()).second) weighed_ops.push_back(&op);
  };
  const auto conversion_op = [&](size_t layer, Layout from, Layout to) -> const Operator* {
    return Convertible(from, to) ? &ops.Conversion(from, to, kernels_of(layer).front().arguments.front().dims)
                                 : nullptr;
  };
  std::vector<ChainLayer> chain(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    for (const KernelSpec& spec : kernels_of(i)) {
      chain[i].candidates.push_back(LayoutsOf(spec));
      if (kernels_of(i).size() > 1) weigh(ops.Of(spec));
    }
    if (i > 0) {
      const auto& before = kernels_of(i - 1).front();
      chain[i].reads_previous =
          before.arguments[OutputIndex(before)].dims == kernels_of(i).front().arguments.front().dims;
    }
  }
  const bool weighed =
      std::any_of(chain.begin(), chain.end(), [](const ChainLayer& l) { return l.candidates.size() > 1; });
  if (weighed)  // a first pass only to learn which conversions the plan weighs
    PlanLayouts(chain, [&](size_t layer, Layout from, Layout to) {
      if (const Operator* op = conversion_op(layer, from, to)) weigh(*op);
      return 0.0;
    });
  const std::vector<double> seconds = LeastOverInterleavedRounds(
      weighed_ops.size(), kPlanTimingRounds, [&](size_t k) { return TimeAlone(context, *weighed_ops[k], timing_rng); });
  for (size_t i = 0; i < layers.size(); ++i)
    if (kernels_of(i).size() > 1)
      for (size_t c = 0; c < chain[i].candidates.size(); ++c)
        chain[i].candidates[c].seconds = seconds[index_of.at(&ops.Of(kernels_of(i)[c]))];
  const auto conversion_cost = [&](size_t layer, Layout from, Layout to) {
    const Operator* op = conversion_op(layer, from, to);
    return op ? seconds[index_of.at(op)] : 0.0;
  };

  NetworkPlan plan;
  plan.weighed = weighed;
  const std::vector<size_t> fastest_each(layers.size(), 0);
  const std::vector<size_t> chosen = plan.weighed ? PlanLayouts(chain, conversion_cost) : fastest_each;
  plan.conversions_fastest_each = ConversionsIn(chain, fastest_each);
  for (size_t i = 0; i < layers.size(); ++i) {
    plan.layer_ops.push_back(&ops.Of(kernels_of(i)[chosen[i]]));
    plan.layers_replanned += chosen[i] != 0;
  }
  return plan;
}

}  // namespace tt::runtime
