#include "model/rank_correlation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tt {
namespace {

TEST(RankCorrelation, SameAndReverseOrder) {
  const std::vector<double> a{1, 2, 3, 4, 5}, scaled{10, 20, 35, 41, 90}, reversed{5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(SpearmanRho(a, scaled), 1);  // only the order counts
  EXPECT_DOUBLE_EQ(KendallTau(a, scaled), 1);
  EXPECT_DOUBLE_EQ(SpearmanRho(a, reversed), -1);
  EXPECT_DOUBLE_EQ(KendallTau(a, reversed), -1);
}

TEST(RankCorrelation, OneSwap) {
  const std::vector<double> a{1, 2, 3}, b{1, 3, 2};
  EXPECT_DOUBLE_EQ(SpearmanRho(a, b), 0.5);     // 1 - 6 * 2 / (3 * 8)
  EXPECT_DOUBLE_EQ(KendallTau(a, b), 1.0 / 3);  // 2 concordant, 1 discordant
}

TEST(RankCorrelation, TiesTakeAverageRanksAndTauB) {
  const std::vector<double> a{1, 2, 2, 3}, b{1, 2, 3, 4};
  EXPECT_NEAR(SpearmanRho(a, b), 4.5 / std::sqrt(4.5 * 5), 1e-12);
  EXPECT_NEAR(KendallTau(a, b), 5 / std::sqrt(5.0 * 6), 1e-12);
}

TEST(RankCorrelation, DegenerateInputsAreZeroOrRefused) {
  EXPECT_EQ(SpearmanRho({}, {}), 0);
  EXPECT_EQ(KendallTau({1}, {2}), 0);
  EXPECT_EQ(SpearmanRho({1, 1, 1}, {1, 2, 3}), 0);  // all ties: no order
  EXPECT_EQ(KendallTau({1, 2, 3}, {4, 4, 4}), 0);
  EXPECT_THROW(SpearmanRho({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(KendallTau({1, 2}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace tt
