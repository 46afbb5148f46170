#include "tuners/ga_tuner.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "tuners/synthetic_tuning.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

TEST(GaTuner, ProposesOneGenerationAtATime) {
  const ConfigSpace space = testing::LargeSpace();
  GaTuner tuner(space, 1, {.pop_size = 20, .elite_num = 2, .mutation_prob = 0.1});
  EXPECT_EQ(tuner.NextBatch(15).size(), 15u);
  EXPECT_EQ(tuner.NextBatch(15).size(), 5u);  // the rest of the first generation
  EXPECT_EQ(tuner.NextBatch(100).size(), 20u);
}

// A population of 100 in a 32-trial budget would be random search: it scales with the budget.
TEST(GaTuner, PopulationScalesWithTheBudget) {
  const ConfigSpace space = testing::LargeSpace();
  const auto first_generation = [&](const TunerOptionMap& options) {
    return MakeTuner("ga", space, 1, options)->NextBatch(1000).size();
  };
  EXPECT_EQ(first_generation({}), 100u);  // budget unknown: AutoTVM's population
  EXPECT_EQ(first_generation({{"budget", "300"}}), 30u);
  EXPECT_EQ(first_generation({{"budget", "32"}}), 8u);
  EXPECT_EQ(first_generation({{"budget", "32"}, {"pop_size", "50"}}), 50u);
  EXPECT_EQ(WithBudget("ga", {}, 300).at("budget"), "300");
  EXPECT_EQ(WithBudget("ga", {{"budget", "64"}}, 300).at("budget"), "64");  // the user's wins
  EXPECT_EQ(WithBudget("opevo", {}, 300).count("budget"), 0u);              // opevo takes none
}

// With one fit config among failed ones, every child of the second generation descends from it
// on both sides (failed parents are only drawn once no fit one is left), so mutation alone
// changes it: about mutation_prob of the knobs.
TEST(GaTuner, BreedsFromTheFittest) {
  const ConfigSpace space = testing::LargeSpace();
  GaTuner tuner(space, 2, {.pop_size = 50, .elite_num = 1, .mutation_prob = 0.1});
  const auto first = tuner.NextBatch(50);
  ASSERT_EQ(first.size(), 50u);
  std::vector<Observation> measured;
  for (const Config& c : first) measured.push_back({c, MeasureStatus::kRuntimeError, 0});
  measured[17] = {first[17], MeasureStatus::kOk, 30};
  tuner.Update(measured);
  const auto second = tuner.NextBatch(50);
  ASSERT_EQ(second.size(), 50u);
  double kept = 0;
  for (const Config& child : second)
    for (size_t k = 0; k < child.size(); ++k) kept += child[k] == first[17][k];
  // One parent is the fit one, the other a failed one (drawn uniformly then): half the knobs come
  // from the fit one, minus mutations and de-duplication.
  EXPECT_GT(kept / (50.0 * space.num_knobs()), 0.4);
}

TEST(GaTuner, RejectsBadOptions) {
  const ConfigSpace space = testing::SmallConstrainedSpace();
  EXPECT_THROW(GaTuner(space, 1, {.pop_size = 0, .elite_num = 9, .mutation_prob = 0.1, .budget = 32}), UserError);
  EXPECT_THROW(GaTuner(space, 1, {.pop_size = 4, .elite_num = 5}), UserError);
  EXPECT_THROW(GaTuner(space, 1, {.mutation_prob = 1.5}), UserError);
  for (const TunerOptionMap& bad : std::vector<TunerOptionMap>{
           {{"pop_size", "many"}}, {{"mutation_prob", "-0.1"}}, {{"elite_num", "200"}}, {{"q", "0.5"}}})
    EXPECT_THROW(MakeTuner("ga", space, 1, bad), UserError) << bad.begin()->first;
  EXPECT_NO_THROW(MakeTuner("ga", space, 1, {{"pop_size", "20"}, {"elite_num", "0"}, {"mutation_prob", "1"}}));
}

}  // namespace
}  // namespace tt
