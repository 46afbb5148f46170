#pragma once
// The parts of tensortune::NetworkRunner (network_runner.cpp): which kernel each layer runs
// (the candidates and the layout plan, network_plan.cpp) and what every step shares.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/workload.h"
#include "ocl/context.h"
#include "tensortune/network.h"

namespace tt::runtime {

// The index of a spec's output argument.
size_t OutputIndex(const tensortune::KernelSpec& spec);
// A layer reads its predecessor's output through a device conversion (NCHW <-> NCHW16c).
bool Convertible(tensortune::Layout from, tensortune::Layout to);
// Random values for input `argument` in its plain layout: activations in [-1, 1), weights
// scaled by their fan-in so that activations keep their magnitude from layer to layer.
std::vector<float> RandomPlain(const tensortune::Argument& argument, size_t index, Rng& rng);
// The buffer contents of input `argument` from plain values, padded to its size.
std::vector<float> DeviceData(const tensortune::Argument& argument, const std::vector<float>& plain);

// One operator per distinct kernel, and one per conversion, built once on the runtime.
class OperatorCache {
 public:
  explicit OperatorCache(const tensortune::Runtime& runtime) : runtime_(runtime) {}
  const tensortune::Operator& Of(const tensortune::KernelSpec& spec);
  const tensortune::Operator& Conversion(tensortune::Layout from, tensortune::Layout to,
                                         const std::vector<int64_t>& dims);

 private:
  const tensortune::Runtime& runtime_;
  std::map<std::string, tensortune::Operator> ops_, conversions_;  // node-based: references stay valid
};

// How a layer's kernels are chosen: the source's best for the options, or for one sketch.
using ChooseSpec =
    std::function<tensortune::KernelSpec(const tensortune::Workload&, const tensortune::PrepareOptions&)>;

struct LayerKernels {
  ChooseSpec choose;
  tensortune::PrepareOptions prepare;
  bool weigh_layouts = false;  // also the fastest exact record of every other activation-layout pair
};

struct NetworkPlan {
  std::vector<const tensortune::Operator*> layer_ops;  // per layer
  bool weighed = false;
  int layers_replanned = 0;
  int conversions_fastest_each = 0;
};

// The kernel each layer runs: its workload's best, or where kernels of several layout pairs
// are weighed, the plan of least total time (each timed alone on `context`, with the
// conversions between neighbours).
NetworkPlan PlanNetwork(const std::vector<Workload>& layers, const LayerKernels& kernels, OperatorCache& ops,
                        const ocl::Context& context, Rng& timing_rng);

}  // namespace tt::runtime
