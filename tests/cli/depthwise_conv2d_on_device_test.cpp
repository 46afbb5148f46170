// The depthwise sketches compute the right answer on the default OpenCL device on shapes
// that stress the edges: odd channel counts, sizes no tile divides, strides 1, 2 and 4,
// padding 0 to 3, dilation 2, batch 1 and 3, and the unrolled variants.
#include "cli/on_device.h"
#include "ops/depthwise_conv2d_template.h"

namespace tt {
namespace {

using testing::ExpectAllCorrect;
using testing::QuickMeasureOptions;
using testing::RandomValidConfigs;

class DepthwiseOnDevice : public ::testing::TestWithParam<const char*> {};

TEST_P(DepthwiseOnDevice, RandomValidConfigsOfEverySketchAreCorrect) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const Workload w = ParseWorkload("depthwise_conv2d", GetParam());
  ASSERT_EQ(ApplicableTemplates(w).size(), 3u);
  for (const KernelTemplate* t : ApplicableTemplates(w)) {
    const ConfigSpace space = t->Space(w, measurer.limits());
    const auto configs = RandomValidConfigs(space, 3, 11);
    ASSERT_EQ(configs.size(), 3u) << t->name();
    ExpectAllCorrect(measurer, *t, w, space, configs);
  }
}

INSTANTIATE_TEST_SUITE_P(EdgeShapes, DepthwiseOnDevice,
                         ::testing::Values("n=1,c=5,h=11,w=9,kh=3,kw=3,stride=1,pad=1",
                                           "n=3,c=6,h=9,w=10,kh=3,kw=3,stride=2,pad=0",
                                           "n=1,c=3,h=19,w=17,kh=5,kw=5,stride=4,pad=2",
                                           "n=1,c=7,h=10,w=11,kh=3,kw=3,stride=1,pad=3,dilation=2",
                                           "n=2,c=4,h=7,w=6,kh=1,kw=1,stride=2,pad=0",
                                           "n=1,c=16,h=14,w=14,kh=3,kw=3,stride=2,pad=1"));

TEST(DepthwiseOnDevice, UnrollVariantsAreCorrect) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const Workload w = ParseWorkload("depthwise_conv2d", "n=1,c=6,h=9,w=7,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& t = DepthwiseConv2dTemplate();
  const ConfigSpace space = t.Space(w, measurer.limits());
  std::vector<Config> configs;
  for (const Config& c : RandomValidConfigs(space, 400, 3))
    if (space.Scalar(c, "unroll_explicit") == 1 && space.Scalar(c, "auto_unroll_max_step") == 1500 &&
        configs.size() < 3)
      configs.push_back(c);
  ASSERT_EQ(configs.size(), 3u);
  ExpectAllCorrect(measurer, t, w, space, configs);
}

// The vector sketch with 4-, 8- and 16-wide vectors: contiguous loads at stride 1, lane by
// lane at stride 2, and with dilation.
TEST(DepthwiseOnDevice, WideVectorsAreCorrectAtStridesAndDilation) {
  testing::ExpectWideVectorsCorrect(
      DepthwiseConv2dVecTemplate(),
      {"n=2,c=5,h=9,w=16,kh=3,kw=3,stride=1,pad=1", "n=1,c=3,h=11,w=32,kh=3,kw=3,stride=2,pad=1",
       "n=1,c=4,h=8,w=14,kh=3,kw=3,stride=1,pad=3,dilation=2"});
}

// The channel-vector sketch on pruned channel counts (padding lanes in the last block) and
// rows no pixel block divides, at every vector width the device has.
TEST(DepthwiseOnDevice, ChannelVectorsAreCorrectOnPrunedChannels) {
  testing::ExpectWideVectorsCorrect(
      DepthwiseConv2dNchwcTemplate(),
      {"n=1,c=57,h=7,w=14,kh=3,kw=3,stride=1,pad=1", "n=2,c=117,h=9,w=14,kh=3,kw=3,stride=2,pad=1",
       "n=1,c=19,h=8,w=14,kh=3,kw=3,stride=1,pad=3,dilation=2"});
}

}  // namespace
}  // namespace tt
