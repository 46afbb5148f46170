#include "core/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace tt {
namespace {

TEST(Rng, SameSeedSameSequenceOtherSeedOtherSequence) {
  Rng a(42), b(42), c(43);
  std::vector<uint64_t> from_a, from_b, from_c;
  for (int i = 0; i < 16; ++i) from_a.push_back(a.Next()), from_b.push_back(b.Next()), from_c.push_back(c.Next());
  EXPECT_EQ(from_a, from_b);
  EXPECT_NE(from_a, from_c);
}

TEST(Rng, DrawsStayInTheirRangesAndCoverThem) {
  Rng rng(7);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t below = rng.Below(5);
    ASSERT_LT(below, 5u);
    ++seen[below];
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n > 0; }));
  EXPECT_FALSE(rng.Chance(0));
  EXPECT_TRUE(rng.Chance(1));
}

TEST(Rng, ShuffleIsAPermutation) {
  Rng rng(3);
  std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<int> original = v;
  rng.Shuffle(v);
  EXPECT_TRUE(std::is_permutation(v.begin(), v.end(), original.begin()));
}

}  // namespace
}  // namespace tt
