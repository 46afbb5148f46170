#pragma once
// Which kernel each layer of a chain runs when its candidates want different activation
// layouts: the plan with the least total time, kernels plus the layout conversions between
// neighbours (a Viterbi pass over the chain). A layer's best kernel alone can lose to a
// slightly slower one that reads its neighbour's layout and so saves two conversions.
#include <cstddef>
#include <functional>
#include <vector>

#include "tensortune/runtime.h"

namespace tt {

struct LayoutCandidate {
  tensortune::Layout input = tensortune::Layout::kNCHW;   // of the activation it reads
  tensortune::Layout output = tensortune::Layout::kNCHW;  // of the activation it writes
  double seconds = 0;                                     // the kernel's time
};

struct ChainLayer {
  std::vector<LayoutCandidate> candidates;  // at least one
  bool reads_previous = false;              // its input is the previous layer's output
};

// The time of converting layer `layer`'s input from `from` to `to`; 0 when the layouts need no
// conversion (equal, or not convertible, so the layer reads an input of its own).
using ConversionSeconds = std::function<double(size_t layer, tensortune::Layout from, tensortune::Layout to)>;

// Per layer, the index of its chosen candidate.
std::vector<size_t> PlanLayouts(const std::vector<ChainLayer>& chain, const ConversionSeconds& conversion);

}  // namespace tt
