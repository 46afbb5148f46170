// One median for every median in tensortune (core/statistics.h).
#include "core/statistics.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/measure_result.h"

namespace tt {
namespace {

// Two kernels compared on a loaded machine: load during two of the faster one's three turns
// does not make it the slower one, and every item is timed once per round, in turn.
TEST(Statistics, InterleavedRoundsKeepEachItemsLeastTime) {
  const std::vector<double> intrinsic{1.0, 1.5, 0.2};
  std::vector<size_t> order;
  const auto times = LeastOverInterleavedRounds(3, 3, [&](size_t i) {
    order.push_back(i);
    const bool burst = order.size() == 1 || order.size() == 4;  // item 0's first two turns, under load
    return intrinsic[i] * (burst ? 3.0 : 1.0) + 0.01 * static_cast<double>(order.size() % 2);
  });
  ASSERT_EQ(times.size(), 3u);
  EXPECT_NEAR(times[0], 1.0, 0.011);
  EXPECT_LT(times[0], times[1]);
  EXPECT_NEAR(times[2], 0.2, 0.011);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(LeastOverInterleavedRounds(0, 3, [](size_t) { return 1.0; }).empty());
}

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
