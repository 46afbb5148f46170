// Tier: unit (no device, no program started; the folder's other tests are not)
#include "runtime/layout_plan.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

using tensortune::Layout;

// pointwise (plain 1.0 s or blocked 1.1 s), depthwise (blocked only, 0.5 s), pointwise (1.0 / 1.05 s).
std::vector<ChainLayer> PointwiseDepthwisePointwise() {
  return {{{{Layout::kNCHW, Layout::kNCHW, 1.0}, {Layout::kNCHW, Layout::kNCHW16c, 1.1}}, false},
          {{{Layout::kNCHW16c, Layout::kNCHW16c, 0.5}}, true},
          {{{Layout::kNCHW, Layout::kNCHW, 1.0}, {Layout::kNCHW16c, Layout::kNCHW16c, 1.05}}, true}};
}

TEST(PlanLayouts, SlowerKernelsWinWhenTheySaveConversions) {
  int calls = 0;
  const auto plan = PlanLayouts(PointwiseDepthwisePointwise(), [&](size_t, Layout from, Layout to) {
    EXPECT_NE(from, to);
    ++calls;
    return 0.3;
  });
  EXPECT_EQ(plan, (std::vector<size_t>{1, 0, 1}));
  EXPECT_GT(calls, 0);
}

TEST(PlanLayouts, CheapConversionsKeepEachLayersFastestKernel) {
  const auto plan = PlanLayouts(PointwiseDepthwisePointwise(), [](size_t, Layout, Layout) { return 0.01; });
  EXPECT_EQ(plan, (std::vector<size_t>{0, 0, 0}));
}

TEST(PlanLayouts, ALayerThatReadsAnInputOfItsOwnPaysNoConversion) {
  auto chain = PointwiseDepthwisePointwise();
  chain[1].reads_previous = chain[2].reads_previous = false;
  const auto plan = PlanLayouts(chain, [](size_t, Layout, Layout) { return 100.0; });
  EXPECT_EQ(plan, (std::vector<size_t>{0, 0, 0}));
}

TEST(PlanLayouts, ConversionCostsArePerLayer) {
  // Converting into layer 2 is dear, into layer 1 cheap: only layer 2 follows its neighbour.
  const auto plan =
      PlanLayouts(PointwiseDepthwisePointwise(), [](size_t layer, Layout, Layout) { return layer == 2 ? 0.3 : 0.01; });
  EXPECT_EQ(plan, (std::vector<size_t>{0, 0, 1}));
}

TEST(PlanLayouts, RefusesALayerWithoutCandidates) {
  EXPECT_THROW(PlanLayouts({{{}, false}}, [](size_t, Layout, Layout) { return 0.0; }), std::invalid_argument);
  EXPECT_TRUE(PlanLayouts({}, [](size_t, Layout, Layout) { return 0.0; }).empty());
}

}  // namespace
}  // namespace tt
