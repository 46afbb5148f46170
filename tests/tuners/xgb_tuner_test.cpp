#include "tuners/xgb_tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/errors.h"
#include "tuners/random_tuner.h"
#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

// 7 * 28 * 5 * 4 = 3920 points, all valid; a part of them fails when measured.
ConfigSpace SmoothSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", 64, 2));
  space.AddKnob(Knob::Split("tile_y", 64, 3));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8, 16}));
  space.AddKnob(Knob::Categorical("vec", {1, 2, 4, 8}));
  return space;
}

double Square(double x) { return x * x; }

// A smooth objective with one peak of 100 GFLOPS at tile_x=[8,8], tile_y=[4,4,4], unroll 4,
// vec 4, and a failing corner, like a kernel that runs out of local memory.
Observation MeasureSmooth(const ConfigSpace& space, const Config& c) {
  const KnobValue& x = space.Value(c, "tile_x");
  const KnobValue& y = space.Value(c, "tile_y");
  if (x[1] * y[2] > 256) return {c, MeasureStatus::kRuntimeError, 0};
  const double distance = Square(std::log2(x[1]) - 3) + Square(std::log2(y[1]) - 2) + Square(std::log2(y[2]) - 2) +
                          Square(std::log2(space.Scalar(c, "unroll")) - 2) + (space.Scalar(c, "vec") == 4 ? 0 : 1);
  return {c, MeasureStatus::kOk, 100 * std::exp(-distance / 4)};
}

using MeasureFn = Observation (*)(const ConfigSpace&, const Config&);

// Proposes and measures up to `trials` configs in batches of 8; returns the results in order.
std::vector<Observation> Tune(Tuner& tuner, const ConfigSpace& space, MeasureFn measure, size_t trials) {
  std::vector<Observation> all;
  while (all.size() < trials) {
    const auto batch = tuner.NextBatch(std::min<size_t>(8, trials - all.size()));
    if (batch.empty()) break;
    std::vector<Observation> measured;
    for (const auto& c : batch) measured.push_back(measure(space, c));
    tuner.Update(measured);
    all.insert(all.end(), measured.begin(), measured.end());
  }
  return all;
}

double Best(const std::vector<Observation>& observations) {
  double best = 0;
  for (const auto& o : observations) best = std::max(best, o.gflops);
  return best;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

TEST(XgbTuner, ProposesEveryValidConfigOnceThenStops) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  const std::vector<Config> valid = testing::AllValid(space);
  std::vector<Observation> seeded;
  std::set<Config> expected(valid.begin(), valid.end());
  for (size_t i = 0; i < valid.size(); i += 5) {
    seeded.push_back(testing::SyntheticMeasure(space, valid[i]));
    expected.erase(valid[i]);
  }
  // A small plan, so that the model is refit and planned from many times before the end.
  XgbTuner tuner(space, 1, TunerOptionMap{{"plan_size", "4"}});
  tuner.Seed(seeded);
  const auto proposed = testing::Drive(tuner, space, 7, space.Size());
  EXPECT_EQ(std::set<Config>(proposed.begin(), proposed.end()), expected);
  EXPECT_EQ(proposed.size(), expected.size());  // so none twice
  EXPECT_TRUE(tuner.NextBatch(8).empty());
  EXPECT_GE(tuner.ModelFitSeconds().size(), 10u);
}

TEST(XgbTuner, SameSeedSameSequence) {
  const ConfigSpace space = testing::LargeSpace();
  const TunerOptionMap options{{"plan_size", "16"}, {"objective", "reg"}};
  XgbTuner a(space, 5, options), b(space, 5, options), c(space, 6, options);
  const auto first = testing::Drive(a, space, 8, 64);
  EXPECT_EQ(first, testing::Drive(b, space, 8, 64));
  EXPECT_NE(first, testing::Drive(c, space, 8, 64));
  EXPECT_EQ(a.ModelFitSeconds().size(), 3u);  // after 16, 32 and 48 observations
}

TEST(XgbTuner, FindsBetterConfigsThanRandom) {
  const ConfigSpace space = SmoothSpace();
  std::vector<double> xgb_best, random_best;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    XgbTuner xgb(space, seed);
    RandomTuner random(space, seed);
    xgb_best.push_back(Best(Tune(xgb, space, MeasureSmooth, 100)));
    random_best.push_back(Best(Tune(random, space, MeasureSmooth, 100)));
  }
  // The gap to the optimum (100 GFLOPS), halved at least.
  EXPECT_LT(100 - Median(xgb_best), 0.5 * (100 - Median(random_best)))
      << "xgb " << Median(xgb_best) << ", random " << Median(random_best);
}

TEST(XgbTuner, BadOptionsAreNamed) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  const auto message = [&](const TunerOptionMap& options) {
    try {
      XgbTuner tuner(space, 1, options);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"plan_sise", "8"}}).find("plan_sise"), std::string::npos);
  EXPECT_NE(message({{"objective", "lambdamart"}}).find("objective"), std::string::npos);
  EXPECT_NE(message({{"epsilon", "1.5"}}).find("epsilon"), std::string::npos);
  EXPECT_NE(message({{"plan_size", "0"}}).find("plan_size"), std::string::npos);
  EXPECT_NE(message({{"sa_steps", "-3"}}).find("sa_steps"), std::string::npos);
  EXPECT_EQ(message({{"objective", "rank"}, {"epsilon", "0"}}), "no error");
}

}  // namespace
}  // namespace tt
