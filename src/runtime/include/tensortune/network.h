#pragma once
// tensortune::NetworkRunner: a whole network's tuned layers run in order on one device, with
// real buffers: what `tensortune run-network` does, for programs (and the Python module).
//
//   tensortune::NetworkRunner runner("0");                   // a device as --device names it
//   auto history = tensortune::OpenHistory("history.db");   // or a KernelPack
//   tensortune::NetworkRun run = runner.Run({{"fc1", {"gemm", "1,512,1024"}},
//                                            {"fc2", {"gemm", "1,256,512"}}}, *history);
//   for (const auto& layer : run.layers) std::cout << layer.name << " " << layer.measured_time_s << "\n";
//
// A layer reads the inputs it is given; an input it is not given is the previous layer's output
// when that has the input's shape (converted on the device when the two kernels want different
// layouts), else random values (weights scaled by their fan-in). Each layer runs once and is
// checked against the CPU reference on the inputs it read; then, when every layer matched, the
// whole sequence is timed until it has run NetworkRunOptions::min_runs times and
// min_time_s seconds. Where a workload has recorded kernels of more than one activation-layout
// pair (NCHW, NCHW16c), each is timed alone with the conversions it would need, and the layers
// run the plan of least total time (a Viterbi pass over the chain) rather than each its
// fastest kernel alone. Errors are tensortune::Error, as from the Runtime.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensortune/runtime.h"

namespace tensortune {

struct NetworkLayer {
  std::string name;
  Workload workload;
  // Per input argument (Operator::arguments() order, outputs excluded), its values in the plain
  // layout (NCHW, OIHW, rows x columns); a missing or empty one: the previous layer's output
  // when it fits, else random values.
  std::vector<std::vector<float>> inputs;
};

constexpr int64_t kMaxTimedRuns = 10'000;  // timed passes of a network at most

struct NetworkRunOptions {
  PrepareOptions prepare;     // least_trusted and trust_pack_source (kernel_template is ignored)
  bool fastest_each = false;  // every layer its workload's best kernel, whatever the conversions
  int64_t min_runs = 3;       // timed passes of the whole sequence (after one warm-up): at
  double min_time_s = 1;      // least this many, adding up to at least this (kMaxTimedRuns at most)
  uint64_t seed = 1;          // of the random inputs
  bool keep_outputs = false;  // LayerRun::output holds each layer's output
  // Above 0: each layer is also timed on its own, its kernels back to back (min_runs at least)
  // for at least this long, as a library benchmark times a layer (LayerRun::alone_time_s).
  double alone_min_time_s = 0;
};

struct LayerRun {
  std::string name;
  std::string workload;  // key
  Choice choice;
  Layout input_layout = Layout::kNCHW;   // of the activation the kernel reads
  Layout output_layout = Layout::kNCHW;  // and writes
  bool chained = false;                  // its input is the previous layer's output
  std::string check = "-";               // "ok", "not checked: ...", or "WRONG: <first mismatch>"
  bool failed = false;                   // the output differs from the CPU reference
  double max_abs_error = 0;
  double measured_time_s = 0;        // median device time of its kernels in the timed passes
  double alone_time_s = 0;           // the same, run on its own (NetworkRunOptions::alone_min_time_s)
  std::vector<int64_t> output_dims;  // logical, plain layout
  std::vector<float> output;         // plain layout, with NetworkRunOptions::keep_outputs
};

struct NetworkRun {
  DeviceDescription device;
  std::vector<LayerRun> layers;
  int conversions = 0;               // layout conversions in the sequence
  bool layouts_weighed = false;      // some workload had kernels of several layout pairs
  int layers_replanned = 0;          // layers running a kernel other than their best alone
  int conversions_fastest_each = 0;  // the conversions each layer's best kernel would need
  bool verified = false;             // every checked layer matched its reference
  size_t runs = 0;                   // timed passes (0 when a layer failed its check)
  double measured_latency_s = 0;     // median wall clock of a pass, first enqueue to the queue's end
  double kernels_latency_s = 0;      // median sum of the kernels' device times in a pass
  double conversions_latency_s = 0;  // of which layout conversions
  CacheStats cache;                  // the programs built or loaded
};

class TENSORTUNE_API NetworkRunner {
 public:
  // Opens a context and a profiling queue of its own on `device`: a flat index over all
  // platforms ("0") or a case-insensitive fragment of the device or platform name. Throws Error
  // (kInvalidArgument naming the devices when nothing matches; kOpenCL).
  explicit NetworkRunner(const std::string& device, RuntimeOptions options = {});
  ~NetworkRunner();
  NetworkRunner(NetworkRunner&&) noexcept;
  NetworkRunner& operator=(NetworkRunner&&) noexcept;

  const DeviceDescription& device() const;

  // Each layer's kernel chosen as Runtime::Prepare chooses it. Throws Error as Prepare does
  // (kMissingWorkload for a layer with nothing the options allow), kInvalidArgument for layer
  // inputs of the wrong size, kOpenCL.
  NetworkRun Run(const std::vector<NetworkLayer>& layers, const ConfigSource& source,
                 const NetworkRunOptions& options = {}) const;
  NetworkRun Run(const std::vector<NetworkLayer>& layers, const KernelPack& pack,
                 const NetworkRunOptions& options = {}) const;
  // Every layer at its first applicable template's untuned default (Runtime::PrepareDefault):
  // the baseline that tuning is measured against.
  NetworkRun RunUntuned(const std::vector<NetworkLayer>& layers, const NetworkRunOptions& options = {}) const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace tensortune
