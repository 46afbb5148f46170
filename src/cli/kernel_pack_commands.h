#pragma once
// `tensortune export-kernels NETWORK --db DB --out DIR`: a kernel pack of a network's tuned
// kernels, and `tensortune run-network NETWORK --db DB` (or --pack DIR): the tuned layers run
// in network order on the device with real buffers, checked once against the CPU reference,
// then timed as a whole next to tune-network's estimate. Both go through tensortune::runtime.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "tensortune/network.h"

namespace tt {

struct ExportKernelsOptions {
  std::string network;  // a built-in name or a JSON file
  std::string db;
  std::string device;  // a recorded device: fragment of its name or fingerprint; empty: the one of this machine
  int64_t batch = 1;
  std::string out;
  bool exact_only = false;  // refuse fallbacks: every task needs a verified trial of its own
  bool json = false;
};

struct RunNetworkOptions {
  std::string network;
  std::string db;        // either a history database
  std::string pack;      // or a kernel pack
  bool untuned = false;  // or every layer at its template's untuned default (the baseline)
  std::string device = "0";
  int64_t batch = 1;
  double min_time_s = 1;  // timed passes of the whole network add up to at least this
  int64_t min_runs = 3;
  double alone_time_s = 0;  // above 0: each layer also timed on its own for at least this
  uint64_t seed = 1;
  bool exact_only = false;
  bool trust_pack_source = false;  // run a pack's kernel source that is not this build's sketch
  bool fastest_each = false;       // every layer its workload's fastest kernel, whatever the conversions
  std::string binary_cache;        // a program binary cache directory; empty: none
  bool json = false;
};

// 0 done; 1 with one line on `err` when a task has nothing usable (or, with --exact-only, no
// exact record); throws UserError / EnvironmentError like the other commands.
int RunExportKernels(const ExportKernelsOptions& options, std::ostream& out, std::ostream& err);
// The layers of a network (a built-in name, a JSON file or an ONNX model) at `batch`, in order,
// a repeated layer once per occurrence ("name#2"), as tensortune::NetworkRunner runs them.
// Throws UserError for a network that cannot be read.
std::vector<tensortune::NetworkLayer> NetworkInstances(const std::string& network, int64_t batch);

// 0 done; 1 when a layer's output differs from the CPU reference (no latency is printed then),
// or a layer has nothing usable under --exact-only.
int RunRunNetwork(const RunNetworkOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tt
