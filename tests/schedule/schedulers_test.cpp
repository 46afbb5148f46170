#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "schedule/sketch_selector.h"
#include "schedule/task_scheduler.h"

namespace tt {
namespace {

SchedulerTaskState Task(double best_ms, std::vector<double> history_ms, double weight = 1, double gflop = 1,
                        const std::string& op = "conv2d") {
  SchedulerTaskState t;
  t.op = op;
  t.flops = gflop * 1e9;
  t.weight = weight;
  t.best_time_s = best_ms * 1e-3;
  for (double ms : history_ms) t.best_after_round.push_back(ms * 1e-3);
  return t;
}

// The rounds ucb gives each task in `rounds` picks, no task improving on its best.
std::map<size_t, int> UcbRounds(std::vector<SchedulerTaskState> tasks, int rounds, uint64_t seed) {
  auto ucb = MakeTaskScheduler("ucb");
  Rng rng(seed);
  std::map<size_t, int> count;
  for (int round = 0; round < rounds; ++round) {
    const size_t t = ucb->Pick(tasks, rng);
    ++count[t];
    tasks[t].best_after_round.push_back(tasks[t].best_time_s);
  }
  return count;
}

TEST(TaskScheduler, RoundRobinTakesTheLiveTasksInTurn) {
  auto rr = MakeTaskScheduler("round-robin");
  std::vector<SchedulerTaskState> tasks{Task(1, {1}), Task(1, {1}), Task(1, {1})};
  tasks[1].exhausted = true;
  Rng rng(1);
  std::vector<size_t> picks;
  for (int i = 0; i < 4; ++i) picks.push_back(rr->Pick(tasks, rng));
  EXPECT_EQ(picks, (std::vector<size_t>{0, 2, 0, 2}));
}

TEST(TaskScheduler, GradientWeighsTheLatencyATaskCanStillLose) {
  // Same progress per round; the second occurs four times in the network.
  const std::vector<SchedulerTaskState> tasks{Task(10, {20, 15, 12, 11, 10}), Task(10, {20, 15, 12, 11, 10}, 4)};
  const auto g = LatencyGradients(tasks, {});
  EXPECT_LT(g[1], g[0]);
  EXPECT_LE(g[0], 0);
  auto gradient = MakeTaskScheduler("gradient", SchedulerOptions{.epsilon = 0});
  Rng rng(3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gradient->Pick(tasks, rng), 1u);
}

TEST(TaskScheduler, GradientPrefersATaskStillImprovingOverAFlatOne) {
  const std::vector<SchedulerTaskState> tasks{Task(10, {10, 10, 10, 10, 10}, 1, 1, "gemm"),
                                              Task(10, {40, 30, 20, 15, 10}, 1, 1, "conv2d")};
  const auto g = LatencyGradients(tasks, {});
  EXPECT_LT(g[1], g[0]);
}

// `rounds` rounds that bring a task from `from_ms` to `to_ms`, the last one included.
std::vector<double> Improving(int rounds, double from_ms, double to_ms) {
  std::vector<double> history;
  for (int r = 0; r < rounds; ++r) history.push_back(from_ms + (to_ms - from_ms) * r / (rounds - 1));
  return history;
}

TEST(TaskScheduler, ASlowTaskWithAMuchFasterSimilarTaskPromisesMore) {
  // Both have come down to 10 ms in ten rounds; a similar task (same operator, same FLOPs) runs
  // at 1 ms, so beta x 1 ms is within reach, where alone one more round promises only g / t.
  const std::vector<double> history = Improving(10, 12, 10);
  const std::vector<SchedulerTaskState> pulled{Task(10, history, 1, 1, "conv2d"), Task(1, {1}, 1, 1, "conv2d")};
  const std::vector<SchedulerTaskState> alone{Task(10, history, 1, 1, "conv2d"), Task(1, {1}, 1, 1, "gemm")};
  const double with_neighbour = LatencyGradients(pulled, {.alpha = 0})[0];
  const double without = LatencyGradients(alone, {.alpha = 0})[0];
  EXPECT_NEAR(without, -1e-3, 1e-12);                // g - g/t - g
  EXPECT_NEAR(with_neighbour, 2e-3 - 10e-3, 1e-12);  // beta x 1 ms - g
}

// VGG-16's fc6 streams its 411 MB of weights; fc8's 16 MB stay in the cache, at a throughput fc6
// cannot reach. Each round that does not bring fc6 closer halves what is left of that promise
// every two rounds, and the promise never falls below what its own rounds suggest (g / t).
TEST(TaskScheduler, APromiseThatRoundsDoNotBringCloserFades) {
  std::vector<double> history = Improving(10, 12, 10);  // progress in its last round
  SchedulerTaskState fc8 = Task(0.15, {0.15}, 1, 0.0082, "gemm");
  const auto pull = [&](const std::vector<double>& rounds) {
    return LatencyGradients({Task(rounds.back(), rounds, 1, 0.205, "gemm"), fc8}, {.alpha = 0})[0];
  };
  const double reachable_ms = 2 * 0.205 / (0.0082 / 0.15);
  EXPECT_NEAR(pull(history), (reachable_ms - 10) * 1e-3, 1e-9);
  history.push_back(10);
  history.push_back(9.95);  // two rounds of less than 1% each: half of it
  EXPECT_NEAR(pull(history), (reachable_ms - 9.95) * 1e-3 / 2, 1e-9);
  for (int r = 0; r < 10; ++r) history.push_back(9.95);
  EXPECT_NEAR(pull(history), -9.95e-3 / static_cast<double>(history.size()), 1e-9);  // g / t again
  history.push_back(9.5);  // progress: the full promise is back
  EXPECT_NEAR(pull(history), (reachable_ms - 9.5) * 1e-3, 1e-9);
}

// fc6 beside three convolutions of about its time, none of them improving any more: with the
// cached fc8 for a neighbour it used to take nearly every round.
TEST(TaskScheduler, AnUnreachedNeighbourDoesNotTakeTheBudget) {
  std::vector<SchedulerTaskState> network{Task(10, Improving(10, 12, 10), 1, 0.205, "gemm"),
                                          Task(0.15, {0.15}, 1, 0.0082, "gemm")};
  for (int i = 0; i < 3; ++i) network.push_back(Task(7, Improving(10, 9, 7), 1, 3.7, "conv2d"));
  std::map<size_t, int> count = UcbRounds(network, 60, 5);
  EXPECT_LT(count[0], 25);
  for (size_t conv = 2; conv < 5; ++conv) EXPECT_GT(count[conv], 6);
}

// A 1x1 projection (0.0128 GFLOP) stuck at about 11 GFLOPS beside a 3x3 layer (0.231 GFLOP)
// at 154 GFLOPS: not alike in size, but of one operator, so the projection has much to gain.
TEST(TaskScheduler, ASmallTaskFarBelowItsOperatorsThroughputPromisesMuch) {
  const std::vector<double> history = Improving(10, 1.3, 1.1);
  const std::vector<SchedulerTaskState> network{Task(1.1, history, 1, 0.0128), Task(1.5, {2, 1.5}, 4, 0.231)};
  const SchedulerOptions forward_only{.alpha = 0};
  const double pulled = LatencyGradients(network, forward_only)[0];
  EXPECT_NEAR(LatencyGradients({network[0]}, forward_only)[0], -0.11e-3, 1e-9);  // g/t, nothing better known
  EXPECT_NEAR(pulled, 2 * 0.0128e9 / (0.231e9 / 1.5e-3) - 1.1e-3, 1e-9);         // beta x at 154 GFLOPS
  // The device's history of the operator pulls the same way.
  SchedulerTaskState remembered = network[0];
  remembered.history_gflops = 154;
  EXPECT_NEAR(LatencyGradients({remembered}, forward_only)[0], pulled, 1e-6);
  // ucb then gives the projection more rounds than its small time alone would earn it.
  SchedulerTaskState unrelated = network[1];
  unrelated.op = "gemm";
  EXPECT_GT(UcbRounds(network, 40, 7)[0], UcbRounds({network[0], unrelated}, 40, 7)[0]);
}

// ResNet-18's 7x7 stem (0.236 GFLOP at 112 GFLOPS, no Winograd sketch applies) beside a 3x3
// layer whose Winograd time counts as 330 GFLOPS of direct convolution: held up to that, the
// stem would promise a drop that never shrinks (it took 300 of 400 trials); of other sketches,
// the 3x3 layer pulls nothing, and a stride-2 layer of the stem's sketches still does.
TEST(TaskScheduler, OnlyTasksOfTheSameSketchesSetEachOthersReach) {
  std::vector<double> rounds(29, 2.3);
  rounds.push_back(2.1);  // its last round gained
  SchedulerTaskState stem = Task(2.1, rounds, 1, 0.236), winograd = Task(0.7, {0.9, 0.7}, 4, 0.231);
  stem.sketches = "conv2d_direct_vec,conv2d_oc_vec_nchwc,";
  winograd.sketches = "conv2d_direct_vec,conv2d_oc_vec_nchwc,conv2d_winograd_f4_nchwc,";
  EXPECT_NEAR(LatencyGradients({stem, winograd}, {.alpha = 0})[0], -2.1e-3 / 30, 1e-9);  // g/t alone
  SchedulerTaskState stride2 = Task(0.3, {0.4, 0.3}, 1, 0.116);  // 387 GFLOPS, of the stem's sketches
  stride2.sketches = stem.sketches;
  EXPECT_NEAR(LatencyGradients({stem, winograd, stride2}, {.alpha = 0})[0], 2 * 0.236e9 / (0.116e9 / 0.3e-3) - 2.1e-3,
              1e-9);
  // ucb then shares the rounds rather than giving the stem every one.
  std::map<size_t, int> count = UcbRounds({stem, winograd}, 40, 11);
  EXPECT_GT(count[1], count[0]);
}

TEST(TaskScheduler, UcbTriesEveryTaskThenFavoursTheLargestGradientWhileStillExploring) {
  auto ucb = MakeTaskScheduler("ucb");
  Rng rng(5);
  // Equal histories; the third occurs four times in the network, so its gradient is 4x.
  std::vector<SchedulerTaskState> tasks{Task(10, {}, 1), Task(10, {}, 1), Task(10, {}, 4)};
  std::set<size_t> first;
  for (int i = 0; i < 3; ++i) {
    const size_t t = ucb->Pick(tasks, rng);
    first.insert(t);
    tasks[t].best_after_round.push_back(tasks[t].best_time_s);
  }
  EXPECT_EQ(first.size(), 3u);
  std::map<size_t, int> count;
  for (int round = 0; round < 60; ++round) {
    const size_t t = ucb->Pick(tasks, rng);
    ++count[t];
    tasks[t].best_after_round.push_back(tasks[t].best_time_s);
  }
  EXPECT_GT(count[2], count[0]);
  EXPECT_GT(count[2], count[1]);
  EXPECT_GT(count[0] + count[1], 0);  // exploration: the others are not starved
}

TEST(TaskScheduler, ExhaustedTasksAreNeverPickedAndUnknownNamesAreRefused) {
  for (const auto& name : TaskSchedulerNames()) {
    auto s = MakeTaskScheduler(name);
    std::vector<SchedulerTaskState> tasks{Task(10, {10, 9}), Task(10, {10, 9})};
    tasks[0].exhausted = true;
    Rng rng(2);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(s->Pick(tasks, rng), 1u) << name;
  }
  EXPECT_THROW(MakeTaskScheduler("fifo"), UserError);
}

TEST(SketchSelector, UcbTriesEachSketchThenFavoursTheFastest) {
  auto ucb = MakeSketchSelector("ucb", 0.3);
  std::vector<SketchState> sketches(3);
  const double best[] = {4e-3, 1e-3, 8e-3};  // sketch 1 reaches the fastest kernels
  Rng rng(9);
  std::map<size_t, int> count;
  for (int round = 0; round < 60; ++round) {
    const size_t s = ucb->Pick(sketches, rng);
    ++count[s];
    sketches[s].best_time_s = best[s];
    ++sketches[s].rounds;
  }
  EXPECT_EQ(count.size(), 3u);
  EXPECT_GT(count[1], count[0]);
  EXPECT_GT(count[1], count[2]);
  EXPECT_GE(count[0], count[2]);
  EXPECT_THROW(MakeSketchSelector("greedy"), UserError);
}

TEST(SketchSelector, UcbTriesUntriedSketchesByPriorAndLeavesLowPriorsForLater) {
  auto ucb = MakeSketchSelector("ucb", 0.3);
  std::vector<SketchState> sketches(4);
  sketches[0].prior = 0.95, sketches[1].prior = 1, sketches[2].prior = 0.1, sketches[3].prior = 0.5;
  Rng rng(2);
  EXPECT_EQ(ucb->Pick(sketches, rng), 1u);  // nothing against it, most promising
  sketches[1].best_time_s = 1e-3, sketches[1].rounds = 1;
  EXPECT_EQ(ucb->Pick(sketches, rng), 0u);
  sketches[0].best_time_s = 1.1e-3, sketches[0].rounds = 1;
  // Now 2 and 3 have priors against them: they wait while the bound of the tried ones is higher.
  std::map<size_t, int> count;
  for (int round = 0; round < 6; ++round) {
    const size_t s = ucb->Pick(sketches, rng);
    ++count[s];
    ++sketches[s].rounds;
  }
  EXPECT_EQ(count[2], 0);
  EXPECT_EQ(count[3], 0);
}

TEST(SketchSelector, UcbStopsGivingRoundsToASketchThatCannotWin) {
  auto ucb = MakeSketchSelector("ucb", 0.3);
  std::vector<SketchState> sketches(2);
  sketches[0].best_time_s = 1e-3, sketches[0].rounds = 1;
  sketches[1].best_time_s = 1e-3 / (kCannotWin * 0.9), sketches[1].rounds = 1;  // just past the line
  Rng rng(3);
  for (int round = 0; round < 50; ++round) {
    const size_t s = ucb->Pick(sketches, rng);
    EXPECT_EQ(s, 0u);
    ++sketches[s].rounds;
  }
  sketches[0].exhausted = true;  // when nothing else is left, it is searched after all
  EXPECT_EQ(ucb->Pick(sketches, rng), 1u);
}

TEST(SketchSelector, UniformSpreadsRoundsAndSkipsExhaustedSketches) {
  auto uniform = MakeSketchSelector("uniform");
  std::vector<SketchState> sketches(3);
  sketches[2].exhausted = true;
  Rng rng(4);
  std::map<size_t, int> count;
  for (int i = 0; i < 200; ++i) ++count[uniform->Pick(sketches, rng)];
  EXPECT_EQ(count[2], 0);
  EXPECT_GT(count[0], 60);
  EXPECT_GT(count[1], 60);
}

}  // namespace
}  // namespace tt
