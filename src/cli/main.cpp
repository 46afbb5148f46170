// tensortune: auto-tuning of OpenCL tensor kernels with every trial kept in SQLite.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <iostream>

#include "cli/best_command.h"
#include "cli/cli_main.h"
#include "cli/compare_command.h"
#include "cli/history_cli.h"
#include "cli/kernel_pack_cli.h"
#include "cli/list_commands.h"
#include "cli/network_commands.h"
#include "cli/seed_option.h"
#include "cli/tune_command.h"
#include "cli/whole_file.h"
#include "core/errors.h"
#include "core/exit_on_signal.h"
#include "schedule/sketch_selector.h"
#include "schedule/task_scheduler.h"
#include "tuners/tuner_factory.h"

namespace {

// Errors are one line (README): user text in them (an operator name, a path, a key) with line
// breaks or other control characters is written escaped.
std::string OneLine(const std::string& text) {
  std::string line;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      line += "\\n";
    else if (c == '\r')
      line += "\\r";
    else if (c == '\t')
      line += "\\t";
    else if (u < 0x20 || u == 0x7f)
      line += fmt::format("\\x{:02x}", u);
    else
      line += c;
  }
  return line;
}

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

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

// --op, --shape, the shape's switches and --template, shared by every command that names a workload.
void AddWorkloadOptions(CLI::App& cmd, std::string& op, std::string& shape, std::vector<std::string>& flags,
                        std::string& kernel_template, std::vector<std::string>& pins) {
  cmd.add_option("--op", op, "Operator (see `tensortune templates`)")->required();
  cmd.add_option("--shape", shape,
                 "Workload shape: 512,1024,1024 for gemm (M,N,K); n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1 "
                 "for conv2d (see `tensortune templates`)")
      ->required();
  for (const char* flag : {"transpose_a", "transpose_b"}) {
    std::string name = std::string("--") + flag;
    std::replace(name.begin(), name.end(), '_', '-');
    cmd.add_flag_callback(
        name, [&flags, flag] { flags.emplace_back(flag); },
        "batch_matmul: transpose the " + std::string(flag[10] == 'a' ? "first" : "second") + " input");
  }
  cmd.add_option("--template", kernel_template, "Kernel template (default: the operator's first applicable one)");
  cmd.add_option("--pin", pins,
                 "Hold a knob at one value, written as in a config key: vec=8, tile_k=[4,8,8] (repeatable)");
}

void AddBuildersOption(CLI::App& cmd, int& builders) {
  cmd.add_option("--builders", builders,
                 "Processes that build a batch's configs in parallel before they are timed one by one "
                 "(0: the timing process builds)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
}

// Options shared by the commands that measure on a device.
void AddMeasuringOptions(CLI::App& cmd, tt::TuneOptions& o) {
  AddWorkloadOptions(cmd, o.op, o.shape, o.shape_flags, o.kernel_template, o.pins);
  cmd.add_option("--batch-size", o.tuning.batch_size, "Configurations per measured batch")->capture_default_str();
  tt::AddSeedOption(cmd, o.tuning.seed);
  cmd.add_option("--db", o.db, "History database (created if missing)")->capture_default_str();
  cmd.add_option("--device", o.device, "Device index or name fragment")->capture_default_str();
  cmd.add_option("--timeout", o.timeout_s, "Seconds allowed per configuration")->capture_default_str();
  AddBuildersOption(cmd, o.builders);
  cmd.add_option("--min-time", o.min_time_s, "Minimum total timed seconds per configuration")->capture_default_str();
  cmd.add_option("--time-limit", o.tuning.time_limit_s, "Stop after this many seconds (0: no limit)")
      ->capture_default_str();
  cmd.add_option("--retime-share", o.tuning.retime_share,
                 "After the search, the leading configs are timed again side by side, at most this share of the "
                 "trials (0: none)")
      ->capture_default_str();
  cmd.add_flag("--retry-failed", o.tuning.retry_failed,
               "Measure again configs whose only records are environment failures (timeouts included)");
  cmd.add_flag("--no-winograd", o.no_winograd,
               "Refuse a Winograd sketch named by --template (their rounding error: docs/templates.md)");
  cmd.add_flag("--json", o.json, "Print one JSON summary instead of text");
  cmd.add_option("--progress", o.progress,
                 "auto (a redrawn line on a terminal, plain lines otherwise), bar, plain, json (one JSON object "
                 "per batch) or none")
      ->capture_default_str();
}

}  // namespace

int TensortuneMain(int argc, char** argv) {
  tt::ExitOnSignal();  // every command: SIGINT, SIGTERM and SIGHUP end it with 130
  CLI::App app{"tensortune: find the fastest configuration of OpenCL tensor kernels"};
  app.set_version_flag("--version", "tensortune " TENSORTUNE_VERSION);
  app.require_subcommand(1);

  app.add_subcommand("devices", "List OpenCL platforms and devices");
  app.add_subcommand("templates", "List operators, their kernel templates and shape syntax");
  app.add_subcommand("tuners", "List the tuners and their --tuner-opt options (values, defaults)");

  tt::TuneOptions tune;
  std::vector<std::string> tuner_opts;
  auto* tune_cmd = app.add_subcommand("tune", "Tune one operator on one device, recording every trial");
  auto* sweep_cmd = app.add_subcommand(
      "sweep", "Measure every valid config of a space (at most --limit), else a random sample of --limit");
  for (auto* cmd : {tune_cmd, sweep_cmd}) AddMeasuringOptions(*cmd, tune);
  tune_cmd
      ->add_option(
          "--tuner", tune.tuning.tuner,
          fmt::format("Search strategy: auto (chosen from the history), {}", fmt::join(tt::TunerNames(), ", ")))
      ->capture_default_str();
  tune_cmd->add_option("--tuner-opt", tuner_opts, "Tuner option key=value (repeatable; see `tensortune tuners`)");
  tune_cmd->add_option("--trials", tune.tuning.trials, "Configurations to measure")->capture_default_str();
  tune_cmd->add_option("--kernel", tune.kernel_spec,
                       "Tune your own OpenCL kernel, Kernel Tuner's way, described by SPEC.json (docs/python.md; "
                       "instead of --op and --shape; without --trials every valid config)");
  tune_cmd->get_option("--op")->required(false);
  tune_cmd->get_option("--shape")->required(false);
  std::string tune_warm_from = "auto";
  tune_cmd
      ->add_option("--warm-from", tune_warm_from,
                   "Other devices' records of this task to start from: auto (the most similar devices), none, "
                   "or comma-separated name fragments or indices")
      ->capture_default_str();
  tune.sweep_limit = 2000;
  // --limit 0 would read as "not a sweep" below.
  sweep_cmd->add_option("--limit", tune.sweep_limit, "Most configurations to measure")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  tt::TuneNetworkOptions net;
  std::vector<std::string> net_tuner_opts;
  app.add_subcommand("networks", "List the built-in networks");
  tt::TasksOptions tasks;
  auto* tasks_cmd = app.add_subcommand("tasks", "Show a network's tasks: distinct workloads, weights, FLOPs, sketches");
  tasks_cmd->add_option("network", tasks.network, "Built-in network name, JSON file or ONNX model")->required();
  tasks_cmd->add_option("--batch", tasks.batch, "Batch size (ONNX: of the inputs' dynamic leading dimension)")
      ->capture_default_str();
  tasks_cmd
      ->add_option("--input-shape", tasks.input_shapes,
                   "ONNX models: an input's dimensions, name=1,3,224,224 (repeatable)")
      ->allow_extra_args(false);
  tasks_cmd->add_flag("--json", tasks.json, "Print JSON");
  auto* net_cmd = app.add_subcommand("tune-network", "Tune every layer of a network under one trial budget");
  net_cmd->add_option("network", net.network, "Built-in network name, JSON file or ONNX model")->required();
  net_cmd->add_option("--trials", net.tuning.trials, "Trials for the whole network")->required();
  net_cmd->add_option("--batch", net.tuning.batch, "Batch size of the network")->capture_default_str();
  net_cmd
      ->add_option("--input-shape", net.input_shapes,
                   "ONNX models: an input's dimensions, name=1,3,224,224 (repeatable)")
      ->allow_extra_args(false);
  net_cmd->add_option("--db", net.db, "History database (created if missing)")->capture_default_str();
  net_cmd->add_option("--device", net.device, "Device index or name fragment")->capture_default_str();
  net_cmd
      ->add_option("--scheduler", net.tuning.scheduler,
                   fmt::format("Task scheduler: {}", fmt::join(tt::TaskSchedulerNames(), ", ")))
      ->capture_default_str();
  net_cmd
      ->add_option("--sketch", net.tuning.sketch_policy,
                   fmt::format("Sketch selection within a task: {}", fmt::join(tt::SketchSelectorNames(), ", ")))
      ->capture_default_str();
  net_cmd
      ->add_option("--tuner", net.tuning.tuner,
                   fmt::format("Search strategy per sketch: auto (chosen from the history), {}",
                               fmt::join(tt::TunerNames(), ", ")))
      ->capture_default_str();
  net_cmd->add_option("--tuner-opt", net_tuner_opts, "Tuner option key=value (repeatable; see `tensortune tuners`)");
  net_cmd->add_option("--ucb-c", net.tuning.scheduling.ucb_c, "UCB exploration constant (tasks and sketches)")
      ->capture_default_str();
  tt::AddSeedOption(*net_cmd, net.tuning.seed);
  net_cmd->add_option("--batch-size", net.tuning.batch_size, "Configurations per round")->capture_default_str();
  net_cmd->add_option("--timeout", net.timeout_s, "Seconds allowed per configuration")->capture_default_str();
  AddBuildersOption(*net_cmd, net.builders);
  net_cmd->add_option("--min-time", net.min_time_s, "Minimum total timed seconds per configuration")
      ->capture_default_str();
  net_cmd->add_option("--time-limit", net.tuning.time_limit_s, "Stop after this many seconds (0: no limit)")
      ->capture_default_str();
  net_cmd->add_flag("--retry-failed", net.tuning.retry_failed,
                    "Measure again configs whose only records are environment failures");
  net_cmd->add_flag(
      "--warm-similar", net.tuning.warm_similar,
      "Start each tuner (other than auto) from similar workloads' records on this device, this run's included");
  std::string net_warm_from = "auto";
  net_cmd
      ->add_option("--warm-from", net_warm_from,
                   "Each task's records on other devices: auto (the most similar devices' fastest config among its "
                   "first guesses, and its tuner primed with them) or none")
      ->check(CLI::IsMember({"auto", "none"}))
      ->capture_default_str();
  net_cmd->add_flag("--no-winograd", net.tuning.no_winograd,
                    "Leave the Winograd sketches out (their rounding error: docs/templates.md)");
  net_cmd
      ->add_option("--retime-share", net.tuning.retime_share,
                   "After the search, the heaviest tasks' leading configs are timed again side by side, at most this "
                   "share of the trials (0: none)")
      ->capture_default_str();
  net_cmd->add_flag("--measure-default", net.tuning.measure_default,
                    "Also measure each task's untuned template default (one trial per task), for the speed-up");
  net_cmd->add_flag("--json", net.json, "Print one JSON summary instead of text");
  net_cmd
      ->add_option("--progress", net.progress,
                   "auto (a redrawn line on a terminal, plain lines otherwise), bar, plain, json (one JSON object "
                   "per round) or none")
      ->capture_default_str();

  tt::CompareOptions compare;
  std::string compare_tuners = "opevo,ga,xgb,random";
  auto* compare_cmd = app.add_subcommand("compare", "Replay tuners on a recorded space, many seeds, side by side");
  AddWorkloadOptions(*compare_cmd, compare.op, compare.shape, compare.shape_flags, compare.kernel_template,
                     compare.pins);
  compare_cmd->get_option("--op")->required(false);
  compare_cmd->get_option("--shape")->required(false);
  compare_cmd->add_option("--space", compare.space, "An imported Kernel Tuner kernel (instead of --op and --shape)");
  compare_cmd->add_option("--db", compare.db, "History database holding the recorded space")->required();
  compare_cmd->add_option("--device", compare.device, "Recorded device: index or name fragment");
  compare_cmd->add_option("--tuners", compare_tuners, "Comma-separated tuners, each with options as bo:init=10:xi=0.1")
      ->capture_default_str();
  compare_cmd->add_option("--seeds", compare.seeds, "Runs per tuner")->capture_default_str();
  compare_cmd->add_option("--trials", compare.trials, "Trials per run")->capture_default_str();
  compare_cmd->add_option("--batch-size", compare.batch_size, "Configurations per batch")->capture_default_str();
  std::string compare_warm_from;
  compare_cmd->add_option("--warm-from", compare_warm_from,
                          "Also replay each tuner warm-started from these devices' records of the task "
                          "(comma-separated name fragments or indices, or auto: the most similar devices)");
  compare_cmd->add_option("--runs-out", compare.runs_out,
                          "Append every run (best so far after each trial) to this file as JSON lines");

  const tt::HistoryCommands history(app);
  const tt::KernelPackCommands kernel_packs(app);
  tt::BestOptions best;
  auto* best_cmd = app.add_subcommand(
      "best", "The best verified config of a workload from the history (or a fallback from a similar one), as JSON");
  AddWorkloadOptions(*best_cmd, best.op, best.shape, best.shape_flags, best.kernel_template, best.pins);
  best_cmd->add_option("--db", best.db, "History database")->required();
  best_cmd->add_option("--device", best.device, "Recorded device: name fragment (default: any)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // Bad input: one line and exit 2, like every other input error (not CLI11's own codes).
    std::cerr << "tensortune: error: " << OneLine(e.what()) << " (see --help)\n";
    return 2;
  }

  const auto run = [&]() -> int {
    if (app.got_subcommand("devices")) return tt::RunDevices(std::cout);
    if (app.got_subcommand("templates")) return tt::RunTemplates(std::cout);
    if (app.got_subcommand("tuners")) return tt::RunTuners(std::cout);
    if (app.got_subcommand("networks")) return tt::RunNetworks(std::cout);
    if (app.got_subcommand("tasks")) {
      tasks.batch_given = tasks_cmd->count("--batch") > 0;
      return tt::RunTasks(tasks, std::cout);
    }
    if (app.got_subcommand("tune-network")) {
      net.batch_given = net_cmd->count("--batch") > 0;
      net.tuning.tuner_options = ParseKeyValues(net_tuner_opts);
      net.tuning.warm_from_devices = net_warm_from == "auto";
      net.tuning.command = JoinArgs(argc, argv);
      return tt::RunTuneNetwork(net, std::cout);
    }
    if (const auto code = history.RunChosen(std::cout, std::cerr)) return *code;
    if (const auto code = kernel_packs.RunChosen(std::cout, std::cerr)) return *code;
    if (app.got_subcommand("best")) return tt::RunBest(best, std::cout, std::cerr);
    if (app.got_subcommand("compare")) {
      compare.tuners = SplitList(compare_tuners);
      if (!compare_warm_from.empty()) compare.warm_from = SplitList(compare_warm_from);
      return tt::RunCompare(compare, std::cout);
    }
    if (!app.got_subcommand("sweep")) tune.sweep_limit = 0;
    tune.trials_given = tune_cmd->count("--trials") > 0;
    tune.tuning.tuner_options = ParseKeyValues(tuner_opts);
    tune.warm_from = SplitList(tune_warm_from);
    tune.tuning.command = JoinArgs(argc, argv);
    return tt::RunTune(tune, std::cout);
  };
  try {
    const int code = run();
    // Output that could not be written (a full disk, a closed pipe) is no success.
    tt::CheckWritten(std::cout, "standard output");
    return code;
  } catch (const tt::UserError& e) {
    std::cerr << "tensortune: error: " << OneLine(e.what()) << "\n";
    return 2;
  } catch (const tt::EnvironmentError& e) {
    std::cerr << "tensortune: environment error: " << OneLine(e.what()) << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "tensortune: internal error (please report it): " << OneLine(e.what()) << "\n";
    return 4;
  }
}
