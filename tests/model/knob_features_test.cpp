#include "model/knob_features.h"

#include <gtest/gtest.h>

#include <set>

#include "tuners/synthetic_tuning.h"

namespace tt {
namespace {

using testing::LargeSpace;
using testing::SmallConstrainedSpace;

TEST(KnobFeatures, FixedLengthAndDistinctForEveryConfig) {
  const ConfigSpace space = SmallConstrainedSpace();  // split 3 + discrete 1 + categorical 3
  const KnobFeatures features(space);
  ASSERT_EQ(features.size(), 7u);
  std::set<std::vector<float>> seen;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const auto f = features.Of(space.FromIndex(i));
    EXPECT_EQ(f.size(), 7u);
    seen.insert(f);
  }
  EXPECT_EQ(seen.size(), space.Size());
}

TEST(KnobFeatures, ValuesPerKnobKind) {
  const ConfigSpace space = LargeSpace();
  const KnobFeatures features(space);
  const Config config = *space.FromKey("tile_x=[8,4,16,2];tile_y=[8,8,8];order=[2,0,3,1];unroll=4;vec=2");
  // log2 of the factors; where items 0..3 stand in [2,0,3,1]; the value; one-hot of choice 2.
  EXPECT_EQ(features.Of(config), (std::vector<float>{3, 2, 4, 1, 3, 3, 3, 1, 3, 0, 2, 4, 0, 0, 1, 0}));
}

TEST(KnobFeatures, MatrixRowsEqualSingleFeatures) {
  const ConfigSpace space = SmallConstrainedSpace();
  const KnobFeatures features(space);
  const std::vector<Config> configs{space.FromIndex(5), space.FromIndex(77), space.FromIndex(179)};
  const FeatureMatrix matrix = features.Matrix(configs);
  ASSERT_EQ(matrix.rows, 3u);
  ASSERT_EQ(matrix.cols, 7u);
  for (size_t r = 0; r < 3; ++r)
    EXPECT_EQ(std::vector<float>(matrix.row(r), matrix.row(r) + 7), features.Of(configs[r]));
}

}  // namespace
}  // namespace tt
