#pragma once
// `tensortune networks`, `tensortune tasks NETWORK` and `tensortune tune-network NETWORK`.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

namespace tt {

struct TuneNetworkOptions {
  std::string network;  // a built-in name or a JSON file
  int64_t batch = 1;
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
  double min_time_s = 0.1;
  double time_limit_s = 0;
  double ucb_c = 0.3;
  bool retry_failed = false;
  bool json = false;
  std::string command_line;
};

int RunNetworks(std::ostream& out);
int RunTasks(const std::string& network, int64_t batch, bool json, std::ostream& out);
// Returns the exit code (kInterruptedExitCode when interrupted); throws UserError /
// EnvironmentError like `tune`.
int RunTuneNetwork(const TuneNetworkOptions& options, std::ostream& out);

}  // namespace tt
