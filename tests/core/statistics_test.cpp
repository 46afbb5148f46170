// One median for every median in tensortune (core/statistics.h).
#include "core/statistics.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/measure_result.h"

namespace tt {
namespace {

TEST(Statistics, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0);
  EXPECT_DOUBLE_EQ(Median({7}), 7);
}

TEST(Statistics, QuantilesInterpolateAndKeepAnInfiniteUpperRank) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(Quantile({1, 2}, 0.75), 1.75);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Quantile({1, inf}, 0.5), inf);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, inf}, 0.5), 2);
}

// A config's time is the median of its repeats, the same median as everywhere else.
TEST(Statistics, AMeasuredTimeIsTheMedianOfItsRepeats) {
  const MeasureResult r = MeasureResult::Success({4e-3, 1e-3, 3e-3, 2e-3}, 1e9, 0);
  EXPECT_DOUBLE_EQ(r.time_s, Median({4e-3, 1e-3, 3e-3, 2e-3}));
  EXPECT_DOUBLE_EQ(r.time_s, 2.5e-3);
}

}  // namespace
}  // namespace tt
