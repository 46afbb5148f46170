#pragma once
// tune-network: one trial budget spent across a network's tasks (distinct workloads) and their
// sketches (kernel templates), where it lowers the estimated network latency most. Every trial
// is recorded; the same run started again continues where it stopped.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/sqlite_history_store.h"
#include "measure/measurer.h"
#include "networks/network.h"
#include "ops/kernel_template.h"
#include "schedule/task_scheduler.h"
#include "schedule/tuning_task.h"

namespace tt {

// What a network run does; the command line parses into it (defaults are the command's).
struct NetworkTuneOptions {
  int64_t batch = 1;  // the network's batch size
  int64_t trials = 0;
  double time_limit_s = 0;            // > 0: stop after this many seconds
  int64_t batch_size = 8;             // configs per round
  std::string scheduler = "ucb";      // TaskSchedulerNames()
  std::string sketch_policy = "ucb";  // SketchSelectorNames()
  std::string tuner = "bo";
  std::map<std::string, std::string> tuner_options;
  uint64_t seed = 1;
  SchedulerOptions scheduling;  // ucb_c is also the sketch UCB's constant
  bool retry_failed = false;    // measure again configs whose only records are transient failures
  // A tuner other than auto starts primed with similar workloads' records on this device (this
  // run's finished rounds included). Off by default: one side-by-side ResNet-18 pair came out
  // better at one thread and worse at two (docs/results.md).
  bool warm_similar = false;
  // The task's records on other devices (the most similar ones): the fastest of them among its
  // first guesses, and a tuner other than auto primed with them (as tune --warm-from auto).
  bool warm_from_devices = true;
  // Also measure each task's untuned template default (UntiledConfig), for default_time_s and
  // the speed-up over it; off by default, since it spends one trial per task on a config
  // nobody keeps.
  bool measure_default = false;
  // Leave the Winograd sketches out (ops/conv2d_templates.h, IsWinogradSketch): for a model
  // that needs the direct convolution's rounding error.
  bool no_winograd = false;
  // After the search, the heaviest tasks' leading configs timed again side by side
  // (schedule/retime_leaders.h), at most this share of the trials used: re-timings are not
  // trials (no config is new), but they cost wall clock. 0: none.
  double retime_share = 0.25;
  std::string command;  // recorded with the run

  // Throws UserError (naming the options as the command line spells them) for a count, a time
  // or a constant out of range and for an unknown scheduler or sketch policy. The tuner's name
  // and options need a space: CheckTunerChoice.
  void Check() const;
};

struct SketchReport {
  std::string template_name;
  size_t history = 0;    // configs its history held when the run started
  int64_t measured = 0;  // in this process
  std::optional<TaskBest> best;
  std::string flow{};        // how its tuner started: --tuner auto's flow, or a warm start from similar workloads
  double prior = 1;          // expected ratio to the fastest sketch (sketch_prior.h), at the last pick
  std::string prior_note{};  // what the prior rests on
};

// The config the first round gave a task with nothing measured of its own (first_guess.h), or
// its own history's best.
struct FirstConfig {
  std::string template_name;
  std::string config_key;
  std::string source;  // where it came from
};

struct NetworkTaskReport {
  NetworkTask task;
  double flops = 0;
  std::optional<double> default_time_s;  // the untuned default config (see UntiledConfig), with --measure-default
  std::optional<FirstConfig> first;
  std::vector<SketchReport> sketches;
  int64_t rounds = 0;
  bool started_warm = false;  // its history held trials before this run
  std::string sketch_choice;  // which sketch it settled on and why (also in network_tasks)

  // The best over its sketches: (sketch index, best).
  std::optional<std::pair<size_t, TaskBest>> Best() const;
  // Its best time, else its default's; nullopt when neither is known.
  std::optional<double> LatencyS() const;
  // "conv2d_oc_vec: fastest of 2 tried (conv2d_winograd at 0.55 of it); not tried: ..."
  std::string ExplainChoice() const;
  // No config of it was measured (a budget smaller than the task count): it runs `first`,
  // transferred and unmeasured.
  bool Unmeasured() const { return !Best() && first.has_value(); }
};

// The leaders timed again after the search (NetworkTuneOptions::retime_share).
struct RetimeReport {
  int64_t measurements = 0;
  int tasks = 0;
  int64_t failed = 0;           // leaders that failed when timed again: recorded as failures
  double latency_before_s = 0;  // the estimate before; the report's LatencyS() is after
};

struct NetworkRunReport {
  int64_t network_run_id = 0;
  bool resumed = false;
  std::string network;
  int64_t batch = 1;
  int64_t trials_used = 0;  // by this network run, earlier sessions of it included
  int64_t trials_budget = 0;
  bool interrupted = false;
  bool exhausted = false;  // every sketch of every task was searched completely
  std::vector<NetworkTaskReport> tasks;
  int last_task = -1;  // the task of the latest round
  RetimeReport retimed;

  // Sum over tasks of weight x LatencyS(); tasks with neither best nor default are left out
  // (counted by TasksUnknown), tasks with only a default are counted by TasksAtDefault.
  double LatencyS() const;
  // The estimate where the search ended, before the leaders were timed again.
  double SearchEndLatencyS() const;
  double DefaultLatencyS() const;
  int TasksAtDefault() const;
  int TasksUnknown() const;
  int TasksUnmeasured() const;
  int WarmTasks() const;
};

using NetworkProgress = std::function<void(const NetworkRunReport&)>;

// The trials after which an anytime curve ((trials, estimated latency) after each round) first
// came within 1% of `search_end_s`, where the search ended: the budget that would have bought
// nearly as much. The curve's last point when no earlier one did (the estimate was still
// falling); nullopt for an empty curve. The search's end is passed apart because re-timing the
// leaders replaces the curve's last point.
std::optional<int64_t> TrialsToWithinOnePercent(const std::vector<std::pair<int64_t, double>>& curve,
                                                double search_end_s);

// Throws UserError for bad options (options.Check() and every sketch's tuner choice, before
// anything is written) and EnvironmentError when
// the environment breaks (after recording what was measured and marking the run failed).
NetworkRunReport TuneNetwork(SqliteHistoryStore& store, Measurer& measurer, const DeviceInfo& device,
                             const DeviceLimits& limits, const Network& network, const NetworkTuneOptions& options,
                             const std::atomic<bool>* interrupt, const NetworkProgress& progress = {});

}  // namespace tt
