#pragma once
// What the ranks of a tensortune-mpi run say to each other, as JSON text carried in MPI
// messages. Results and the hello travel in the worker protocol's own encoding
// (measure/worker_protocol.h); this adds what only a run over ranks needs. No MPI here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/measure_result.h"
#include "measure/worker_protocol.h"

namespace tt {

// MPI tags: one kind of message each.
enum class RankTag : int {
  kSetup = 1,      // coordinator -> worker rank: how to measure (then the worker says hello)
  kHello = 2,      // worker rank -> coordinator: its device, or why it has none
  kWork = 3,       // coordinator -> worker rank: configs to measure
  kResults = 4,    // worker rank -> coordinator: their results
  kHeartbeat = 5,  // both ways: alive (every second; a worker rank busy or idle, rank 0 whatever it does)
  kAbandon = 6,    // coordinator -> worker rank: stop measuring the configs in hand
  kStop = 7,       // coordinator -> worker rank: the run is over
};

// The measuring options of the run, as rank 0 parsed them (the device is each rank's own).
struct RankSetup {
  double timeout_s = 10;
  int builders = 1;
  double min_time_s = 0.1;
  int max_repeats = 1000;
};

struct RankHello {
  WorkerHello hello;  // the device that the rank's measurer opened, or why none
  std::string host;
  std::string device_spec;  // the rank's --device, as it resolved it
};

// Configs of one task, each with the coordinator's number for it.
struct RankWork {
  std::string template_name;
  std::string workload_key;
  double best_time_s = 0;
  std::vector<int64_t> ids;
  std::vector<std::string> configs;  // ConfigSpace::ToJson: values, not indices (pins differ)
};

struct RankResults {
  std::vector<int64_t> ids;  // a prefix of the work's ids: those finished before an abandon
  std::vector<MeasureResult> results;
  std::string broken;  // non-empty: the rank's measurer cannot go on (its worker cannot restart)
};

struct RankStop {
  bool finalize = true;  // false once a rank was lost: MPI_Finalize would wait for it
};

std::string EncodeSetup(const RankSetup& setup);
std::optional<RankSetup> DecodeSetup(std::string_view text);
std::string EncodeRankHello(const RankHello& hello);
std::optional<RankHello> DecodeRankHello(std::string_view text);
std::string EncodeWork(const RankWork& work);
std::optional<RankWork> DecodeWork(std::string_view text);
std::string EncodeResults(const RankResults& results);
std::optional<RankResults> DecodeResults(std::string_view text);
std::string EncodeStop(const RankStop& stop);
std::optional<RankStop> DecodeStop(std::string_view text);

}  // namespace tt
