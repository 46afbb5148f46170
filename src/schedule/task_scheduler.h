#pragma once
// Which task of a network gets the next round of trials: in turn (round-robin), by Ansor's
// estimated gradient of the network latency (gradient), or by Bansor's UCB over those
// gradients (ucb). Schedulers see plain values; they measure nothing.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"

namespace tt {

struct SchedulerTaskState {
  std::string op;
  // The sketches that can compute it (names): tasks compare throughputs only with tasks that can
  // run the same kernels. Winograd's time, counted in the direct convolution's FLOPs, is out of
  // reach of a 7x7 or stride-2 layer; held up to it, ResNet-18's stem took 300 of 400 trials.
  std::string sketches;
  double flops = 0;
  double weight = 1;                                             // occurrences in the network
  double best_time_s = std::numeric_limits<double>::infinity();  // best so far (or its default)
  std::vector<double> best_after_round;                          // best_time_s after each round it was given
  bool exhausted = false;                                        // every sketch's space is used up: never picked
  // The best throughput (GFLOPS) this operator reached on this device in the history, on
  // workloads of the same sketches: what the task might reach too, like a similar task of the
  // same run (0: none known).
  double history_gflops = 0;
  int64_t rounds() const { return static_cast<int64_t>(best_after_round.size()); }
};

struct SchedulerOptions {
  double alpha = 0.2;       // weight of the backward (observed) gradient against the forward estimate
  double beta = 2;          // how far a task may get from its similar tasks' best throughput
                            // (similar: the same operator and sketches, any size)
  int backward_window = 3;  // rounds looked back for the observed gradient
  // The promise of a similar task's throughput halves every `reach_half_life` rounds in a row
  // that lowered the task's best by less than `progress` (a share of it).
  double reach_half_life = 2;
  double progress = 0.01;
  double epsilon = 0.05;  // gradient: chance of a random task each round
  double ucb_c = 0.3;     // ucb: exploration constant (Bansor: 0.3)
};

class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  // The index of a task that is not exhausted; at least one must not be.
  virtual size_t Pick(const std::vector<SchedulerTaskState>& tasks, Rng& rng) = 0;
};

// "round-robin", "gradient" or "ucb"; throws UserError naming the known ones.
std::unique_ptr<TaskScheduler> MakeTaskScheduler(std::string_view name, const SchedulerOptions& options = {});
void CheckTaskSchedulerName(std::string_view name);  // throws UserError as MakeTaskScheduler does
std::vector<std::string> TaskSchedulerNames();       // in a fixed order (the command line's help)

// d(network latency)/d(trials of task i) as Ansor estimates it (<= 0; more negative is more
// promising); exposed for tests and for the ucb reward.
std::vector<double> LatencyGradients(const std::vector<SchedulerTaskState>& tasks, const SchedulerOptions& options);

}  // namespace tt
