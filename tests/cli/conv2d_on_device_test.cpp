// Every conv2d sketch computes the right answer on the default OpenCL device on shapes that
// stress the edges: odd channel counts, sizes no tile divides, strides 1, 2 and 4, padding
// 0 to 3, dilation 2, batch 1 and 2.
#include "cli/on_device.h"
#include "ops/conv2d_templates.h"

namespace tt {
namespace {

using testing::ExpectAllCorrect;
using testing::QuickMeasureOptions;
using testing::RandomValidConfigs;

class Conv2dOnDevice : public ::testing::TestWithParam<const char*> {};

TEST_P(Conv2dOnDevice, RandomValidConfigsOfEverySketchAreCorrect) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const Workload w = ParseWorkload("conv2d", GetParam());
  size_t sketches = 0;
  for (const KernelTemplate* t : ApplicableTemplates(w)) {
    const ConfigSpace space = t->Space(w, measurer.limits());
    const auto configs = RandomValidConfigs(space, 3, 7);
    ASSERT_EQ(configs.size(), 3u) << t->name();
    ExpectAllCorrect(measurer, *t, w, space, configs);
    ++sketches;
  }
  EXPECT_GE(sketches, 2u);
}

INSTANTIATE_TEST_SUITE_P(EdgeShapes, Conv2dOnDevice,
                         ::testing::Values("n=1,ci=3,h=11,w=9,co=5,kh=3,kw=3,stride=1,pad=1",
                                           "n=2,ci=4,h=9,w=10,co=6,kh=3,kw=3,stride=2,pad=0",
                                           "n=1,ci=3,h=19,w=17,co=4,kh=5,kw=5,stride=4,pad=2",
                                           "n=1,ci=5,h=10,w=11,co=3,kh=3,kw=3,stride=1,pad=3,dilation=2",
                                           "n=2,ci=6,h=7,w=7,co=8,kh=1,kw=1,stride=2,pad=0",
                                           "n=2,ci=7,h=6,w=5,co=3,kh=3,kw=3,stride=1,pad=0",
                                           "n=1,ci=2,h=5,w=8,co=4,kh=3,kw=3,stride=1,pad=2"));

// The explicit-unroll and unrolled-reduction variants compile and compute right too.
TEST(Conv2dOnDevice, UnrollVariantsAreCorrect) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const Workload w = ParseWorkload("conv2d", "n=1,ci=4,h=9,w=7,co=6,kh=3,kw=3,stride=1,pad=1");
  for (const KernelTemplate* t : ApplicableTemplates(w)) {
    const ConfigSpace space = t->Space(w, measurer.limits());
    if (!space.HasKnob("unroll_explicit")) continue;
    std::vector<Config> configs;
    for (const Config& c : RandomValidConfigs(space, 400, 3))
      if (space.Scalar(c, "unroll_explicit") == 1 && space.Scalar(c, "auto_unroll_max_step") == 1500 &&
          configs.size() < 2)
        configs.push_back(c);
    ASSERT_EQ(configs.size(), 2u) << t->name();
    ExpectAllCorrect(measurer, *t, w, space, configs);
  }
}

// The vector sketch with 4-, 8- and 16-wide vectors: contiguous loads at stride 1, lane by
// lane at the padded edges, at stride 2 and with dilation.
TEST(Conv2dOnDevice, WideVectorsAreCorrectAtEdgesStridesAndDilation) {
  testing::ExpectWideVectorsCorrect(
      Conv2dDirectVecTemplate(),
      {"n=1,ci=3,h=9,w=16,co=4,kh=3,kw=3,stride=1,pad=1", "n=2,ci=3,h=11,w=32,co=5,kh=3,kw=3,stride=2,pad=1",
       "n=1,ci=2,h=8,w=14,co=3,kh=3,kw=3,stride=1,pad=3,dilation=2"});
}

}  // namespace
}  // namespace tt
