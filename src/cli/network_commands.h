#pragma once
// `tensortune networks`, `tensortune tasks NETWORK` and `tensortune tune-network NETWORK`.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "networks/network.h"

#include "measure/opencl_measurer.h"

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

struct TuneNetworkOptions {
  std::string network;  // a built-in name, a JSON file or an ONNX model
  int64_t batch = 1;
  bool batch_given = false;               // --batch on the command line
  std::vector<std::string> input_shapes;  // --input-shape name=dims (ONNX models)
  int64_t trials = 0;
  std::string db = "history.db";
  std::string device = "0";
  std::string scheduler = "ucb";
  std::string sketch_policy = "ucb";
  std::string tuner = "bo";
  std::map<std::string, std::string> tuner_options;
  uint64_t seed = 1;
  int64_t batch_size = 8;
  double timeout_s = 10;
  int builders = DefaultBuilders();  // see OpenClMeasurerOptions
  double min_time_s = 0.1;
  double time_limit_s = 0;
  double ucb_c = 0.3;
  bool retry_failed = false;
  bool json = false;
  std::string command_line;
};

int RunNetworks(std::ostream& out);
int RunTasks(const TasksOptions& options, std::ostream& out);
// Returns the exit code (kInterruptedExitCode when interrupted); throws UserError /
// EnvironmentError like `tune`.
int RunTuneNetwork(const TuneNetworkOptions& options, std::ostream& out);

}  // namespace tt
