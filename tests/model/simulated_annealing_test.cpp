#include "model/simulated_annealing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

using testing::AllValid;
using testing::SmallConstrainedSpace;

// Peaks at tile=[16,1,1], unroll=8, vec=2: an invalid config (tile[0] * unroll > 16), so the
// plan must settle for the best valid ones.
float Score(const Config& c) {
  return -static_cast<float>(std::abs(int(c[0]) - 14) + std::abs(int(c[1]) - 3) + (c[2] == 2 ? 0 : 1));
}

std::vector<float> ScoreAll(const std::vector<Config>& configs) {
  std::vector<float> scores;
  for (const auto& c : configs) scores.push_back(Score(c));
  return scores;
}

TEST(Anneal, PlansTheBestAdmissibleValidConfigsBestFirst) {
  const ConfigSpace space = SmallConstrainedSpace();
  const auto admit = [](const Config& c) { return c[2] != 1; };  // as if vec 1 were all measured
  std::vector<float> best_scores;
  for (const Config& c : AllValid(space))
    if (admit(c)) best_scores.push_back(Score(c));
  std::sort(best_scores.begin(), best_scores.end(), std::greater<>());
  best_scores.resize(8);

  Rng rng(7);
  const std::vector<Config> walkers(16, Config{0, 0, 0});
  const AnnealingResult result = Anneal(space, walkers, ScoreAll, admit, {.plan_size = 8}, rng);
  ASSERT_EQ(result.plan.size(), 8u);
  EXPECT_EQ(std::set<Config>(result.plan.begin(), result.plan.end()).size(), 8u);
  for (const Config& c : result.plan) {
    EXPECT_TRUE(space.IsValid(c)) << space.Key(c);
    EXPECT_TRUE(admit(c)) << space.Key(c);
  }
  EXPECT_EQ(ScoreAll(result.plan), best_scores);
  ASSERT_EQ(result.walkers.size(), 16u);
  for (const auto& w : result.walkers) EXPECT_TRUE(space.IsValid(w)) << space.Key(w);
}

TEST(Anneal, SameSeedSamePlan) {
  const ConfigSpace space = SmallConstrainedSpace();
  const auto admit = [](const Config&) { return true; };
  Rng a(3), b(3);
  const std::vector<Config> walkers(8, Config{0, 3, 0});
  EXPECT_EQ(Anneal(space, walkers, ScoreAll, admit, {}, a).plan, Anneal(space, walkers, ScoreAll, admit, {}, b).plan);
}

TEST(Anneal, NoWalkersNoPlan) {
  const ConfigSpace space = SmallConstrainedSpace();
  Rng rng(1);
  const auto result = Anneal(
      space, {}, ScoreAll, [](const Config&) { return true; }, {}, rng);
  EXPECT_TRUE(result.plan.empty());
}

}  // namespace
}  // namespace tt
