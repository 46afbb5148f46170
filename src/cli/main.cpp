// tensortune: auto-tuning of OpenCL tensor kernels with every trial kept in SQLite.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "cli/list_commands.h"
#include "cli/tune_command.h"
#include "core/errors.h"

namespace {

std::string JoinArgs(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

// --tuner-opt key=value, repeatable.
std::map<std::string, std::string> ParseKeyValues(const std::vector<std::string>& items) {
  std::map<std::string, std::string> options;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw tt::UserError("malformed --tuner-opt '" + item + "': expected key=value");
    options[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tensortune: find the fastest configuration of OpenCL tensor kernels"};
  app.require_subcommand(1);

  app.add_subcommand("devices", "List OpenCL platforms and devices");
  app.add_subcommand("templates", "List operators, their kernel templates and shape syntax");

  tt::TuneOptions tune;
  std::vector<std::string> tuner_opts;
  auto* tune_cmd = app.add_subcommand("tune", "Tune one operator on one device, recording every trial");
  tune_cmd->add_option("--op", tune.op, "Operator (see `tensortune templates`)")->required();
  tune_cmd->add_option("--shape", tune.shape, "Workload shape, e.g. 512,1024,1024 for gemm (M,N,K)")->required();
  tune_cmd->add_option("--template", tune.kernel_template, "Kernel template (default: the operator's first)");
  tune_cmd->add_option("--tuner", tune.tuner, "Search strategy")->capture_default_str();
  tune_cmd->add_option("--tuner-opt", tuner_opts, "Tuner option key=value (repeatable)");
  tune_cmd->add_option("--trials", tune.trials, "Configurations to measure")->capture_default_str();
  tune_cmd->add_option("--batch-size", tune.batch_size, "Configurations per measured batch")->capture_default_str();
  tune_cmd->add_option("--seed", tune.seed, "Random seed")->capture_default_str();
  tune_cmd->add_option("--db", tune.db, "History database (created if missing)")->capture_default_str();
  tune_cmd->add_option("--device", tune.device, "Device index or name fragment")->capture_default_str();
  tune_cmd->add_option("--timeout", tune.timeout_s, "Seconds allowed per configuration")->capture_default_str();
  tune_cmd->add_option("--min-time", tune.min_time_s, "Minimum total timed seconds per configuration")
      ->capture_default_str();
  tune_cmd->add_flag("--json", tune.json, "Print one JSON summary instead of text");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (app.got_subcommand("devices")) return tt::RunDevices(std::cout);
    if (app.got_subcommand("templates")) return tt::RunTemplates(std::cout);
    tune.tuner_options = ParseKeyValues(tuner_opts);
    tune.command_line = JoinArgs(argc, argv);
    return tt::RunTune(tune, std::cout);
  } catch (const tt::UserError& e) {
    std::cerr << "tensortune: error: " << e.what() << "\n";
    return 2;
  } catch (const tt::EnvironmentError& e) {
    std::cerr << "tensortune: environment error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "tensortune: internal error: " << e.what() << "\n";
    return 4;
  }
}
