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

TEST(TaskScheduler, ASlowTaskWithAMuchFasterSimilarTaskPromisesMore) {
  // Both have had ten rounds at 10 ms; a similar task (same operator, same FLOPs) runs at
  // 1 ms, so beta x 1 ms is within reach, where alone one more round promises only g / t.
  const std::vector<double> flat(10, 10);
  const std::vector<SchedulerTaskState> pulled{Task(10, flat, 1, 1, "conv2d"), Task(1, {1}, 1, 1, "conv2d")};
  const std::vector<SchedulerTaskState> alone{Task(10, flat, 1, 1, "conv2d"), Task(1, {1}, 1, 1, "gemm")};
  const double with_neighbour = LatencyGradients(pulled, {})[0], without = LatencyGradients(alone, {})[0];
  EXPECT_NEAR(without, 0.8 * -1e-3, 1e-12);                  // (1 - alpha) x (g - g/t - g)
  EXPECT_NEAR(with_neighbour, 0.8 * (2e-3 - 10e-3), 1e-12);  // (1 - alpha) x (beta x 1 ms - g)
}

// A 1x1 projection (0.0128 GFLOP) stuck at about 11 GFLOPS beside a 3x3 layer (0.231 GFLOP)
// at 154 GFLOPS: not alike in size, but of one operator, so the projection has much to gain.
TEST(TaskScheduler, ASmallTaskFarBelowItsOperatorsThroughputPromisesMuch) {
  const std::vector<double> flat(10, 1.1);
  const std::vector<SchedulerTaskState> network{Task(1.1, flat, 1, 0.0128), Task(1.5, {2, 1.5}, 4, 0.231)};
  const double pulled = LatencyGradients(network, {})[0];
  const double alone = LatencyGradients({network[0]}, {})[0];
  EXPECT_NEAR(alone, 0.8 * -0.11e-3, 1e-9);                                       // g/t, nothing better known
  EXPECT_NEAR(pulled, 0.8 * (2 * 0.0128e9 / (0.231e9 / 1.5e-3) - 1.1e-3), 1e-9);  // beta x at 154 GFLOPS
  // The device's history of the operator pulls the same way.
  SchedulerTaskState remembered = network[0];
  remembered.history_gflops = 154;
  EXPECT_NEAR(LatencyGradients({remembered}, {})[0], pulled, 1e-6);
  // ucb then gives the projection more rounds than its small time alone would earn it.
  std::map<size_t, int> count = UcbRounds(network, 40, 7);
  EXPECT_GT(count[0], count[1]);
}

// ResNet-18's 7x7 stem (0.236 GFLOP at 112 GFLOPS, no Winograd sketch applies) beside a 3x3
// layer whose Winograd time counts as 330 GFLOPS of direct convolution: held up to that, the
// stem would promise a drop that never shrinks (it took 300 of 400 trials); of other sketches,
// the 3x3 layer pulls nothing, and a stride-2 layer of the stem's sketches still does.
TEST(TaskScheduler, OnlyTasksOfTheSameSketchesSetEachOthersReach) {
  const std::vector<double> flat(30, 2.1);
  SchedulerTaskState stem = Task(2.1, flat, 1, 0.236), winograd = Task(0.7, {0.9, 0.7}, 4, 0.231);
  stem.sketches = "conv2d_direct_vec,conv2d_oc_vec_nchwc,";
  winograd.sketches = "conv2d_direct_vec,conv2d_oc_vec_nchwc,conv2d_winograd_f4_nchwc,";
  EXPECT_NEAR(LatencyGradients({stem, winograd}, {})[0], 0.8 * -2.1e-3 / 30, 1e-9);  // g/t alone
  SchedulerTaskState stride2 = Task(0.3, {0.4, 0.3}, 1, 0.116);  // 387 GFLOPS, of the stem's sketches
  stride2.sketches = stem.sketches;
  EXPECT_NEAR(LatencyGradients({stem, winograd, stride2}, {})[0], 0.8 * (2 * 0.236e9 / (0.116e9 / 0.3e-3) - 2.1e-3),
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
