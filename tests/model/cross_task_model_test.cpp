// The cross-task cost model on a small synthetic history: five workloads of one template, each
// with records of its own; trained on four of them, it ranks the held-back workload's configs
// far better than chance, and better than a model of a few of that workload's own records.
#include "model/cross_task_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/rng.h"
#include "model/rank_correlation.h"

namespace tt {
namespace {

// A GEMM-like template over an n x n output: two two-level tilings and an unroll.
ConfigSpace Space(int64_t n) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", n, 2));
  space.AddKnob(Knob::Split("tile_y", n, 2));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8}));
  return space;
}

// Fastest with inner tiles of 8 x 4 (4 x 4 on the smallest workloads) and unroll 4; halves by
// 0.7 per doubling away; bigger workloads run faster overall.
double Gflops(const ConfigSpace& space, const Config& c, int64_t n) {
  const double x = std::log2(double(space.Value(c, "tile_x")[1])), y = std::log2(double(space.Value(c, "tile_y")[1]));
  const double best_x = n <= 32 ? 2 : 3;
  const double distance =
      std::abs(x - best_x) + std::abs(y - 2) + std::abs(std::log2(double(space.Scalar(c, "unroll"))) - 2);
  return std::log2(double(n)) * 10 * std::pow(0.7, distance);
}

KnobValues ValuesOf(const ConfigSpace& space, const Config& c) { return *ParseConfigKey(space.Key(c)); }

TaskRecords Records(int64_t n, size_t count, Rng& rng) {
  const ConfigSpace space = Space(n);
  TaskRecords task;
  task.workload_features = {static_cast<float>(std::log2(double(n)))};
  for (size_t i = 0; i < count; ++i) {
    const Config c = space.Random(rng);
    task.configs.push_back(ValuesOf(space, c));
    task.gflops.push_back(Gflops(space, c, n));
  }
  return task;
}

TEST(CrossTaskModel, RanksAHeldBackWorkloadBetterThanChanceAndThanItsOwnFewRecords) {
  Rng rng(11);
  std::vector<TaskRecords> history;
  for (int64_t n : {32, 64, 256, 512}) history.push_back(Records(n, 60, rng));
  const int64_t held_back = 128;
  const ConfigSpace space = Space(held_back);
  CrossTaskModel model(space, 1);
  ASSERT_TRUE(model.Fit(history));

  std::vector<Config> all;
  std::vector<double> truth;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    all.push_back(space.FromIndex(i));
    truth.push_back(Gflops(space, all.back(), held_back));
  }
  const std::vector<float> scores = model.Score({7}, all);
  const std::vector<double> predicted(scores.begin(), scores.end());
  const double rho = SpearmanRho(predicted, truth), tau = KendallTau(predicted, truth);
  EXPECT_GT(rho, 0.6);
  EXPECT_GT(tau, 0.4);

  // Per-task cold start: the same model of 8 of the held-back workload's own records.
  CrossTaskModel own(space, 1);
  ASSERT_TRUE(own.Fit({Records(held_back, 8, rng)}));
  const std::vector<float> own_scores = own.Score({7}, all);
  EXPECT_GT(rho, SpearmanRho(std::vector<double>(own_scores.begin(), own_scores.end()), truth));
  // The same configs given as recorded values score alike.
  std::vector<KnobValues> values;
  for (size_t i = 0; i < 5; ++i) values.push_back(ValuesOf(space, all[i]));
  const std::vector<float> by_values = model.Score({7}, values);
  for (size_t i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(by_values[i], scores[i]);
}

TEST(CrossTaskModel, NothingToLearnFromFailuresAloneAndNoScoresBeforeAFit) {
  const ConfigSpace space = Space(64);
  CrossTaskModel model(space);
  Rng rng(2);
  TaskRecords failed = Records(64, 10, rng);
  for (double& g : failed.gflops) g = 0;
  EXPECT_FALSE(model.Fit({failed}));
  EXPECT_FALSE(model.fitted());
  EXPECT_THROW(model.Score({6}, std::vector<Config>{space.FromIndex(0)}), std::logic_error);
  ASSERT_TRUE(model.Fit({Records(64, 10, rng)}));
  EXPECT_THROW(model.Score({6, 6}, std::vector<Config>{space.FromIndex(0)}), std::invalid_argument);
  // A config with a knob of another length (another template) scores lowest.
  const auto scores = model.Score(
      {6}, std::vector<KnobValues>{*ParseConfigKey("tile_x=[8,8];unroll=4"), ValuesOf(space, space.FromIndex(0))});
  EXPECT_LT(scores[0], scores[1]);
}

}  // namespace
}  // namespace tt
