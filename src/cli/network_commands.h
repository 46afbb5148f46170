#pragma once
// `tensortune networks`, `tensortune tasks NETWORK` and `tensortune tune-network NETWORK`.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "measure/opencl_measurer.h"
#include "networks/network.h"
#include "schedule/network_tuner.h"

namespace tt {

// The network a command names (a built-in name, a JSON file or an ONNX model), its shapes
// fixed as --batch and --input-shape say, and the batch its tasks are at: --batch, or an ONNX
// model's own when --batch is not given. Throws UserError before anything is written.
struct CommandNetwork {
  Network network;
  int64_t batch = 1;
};
CommandNetwork LoadCommandNetwork(const std::string& name, int64_t batch, bool batch_given,
                                  const std::vector<std::string>& input_shapes);

struct TasksOptions {
  std::string network;
  int64_t batch = 1;
  bool batch_given = false;
  std::vector<std::string> input_shapes;  // --input-shape name=dims (ONNX models)
  bool json = false;
};

// tune-network: where the network comes from and how it is measured and recorded; what the
// run does is `tuning`, checked by the engine's own NetworkTuneOptions::Check.
struct TuneNetworkOptions {
  std::string network;                    // a built-in name, a JSON file or an ONNX model
  bool batch_given = false;               // --batch on the command line (tuning.batch)
  std::vector<std::string> input_shapes;  // --input-shape name=dims (ONNX models)
  std::string db = "history.db";
  std::string device = "0";
  double timeout_s = 10;
  int builders = DefaultBuilders();  // see OpenClMeasurerOptions
  double min_time_s = 0.1;
  bool json = false;
  std::string progress = "auto";  // cli/progress.h: auto, bar, plain, json, none
  NetworkTuneOptions tuning;
};

int RunNetworks(std::ostream& out);
int RunTasks(const TasksOptions& options, std::ostream& out);
// Returns the exit code (kInterruptedExitCode when interrupted); throws UserError /
// EnvironmentError like `tune`.
int RunTuneNetwork(const TuneNetworkOptions& options, std::ostream& out);

}  // namespace tt
