// Winograd on channel blocks (conv2d_winograd_f2_nchwc, conv2d_winograd_f4_nchwc) on the default
// OpenCL device: the worker builds each config, runs the input-transform pre-pass and the main
// kernel, and verifies the output against the CPU reference within the sketch's tolerance, on
// a representative subset of the 3x3 stride-1 convolutions of the built-in networks (batch 1:
// ResNet-18's four, AlexNet's odd 13x13 and VGG-16's widest step; each a build of its own, so
// the whole list would take minutes on a cold POCL cache) and on pruned channel counts that no
// block divides.
#include "cli/on_device.h"
#include "ops/conv2d_templates.h"

namespace tt {
namespace {

const std::vector<const char*> kNetworkShapes = {
    "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1",    // ResNet-18 layer1
    "n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1",  // layer2
    "n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1",  // layer3
    "n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1",    // layer4
    "n=1,ci=192,h=13,w=13,co=384,kh=3,kw=3,stride=1,pad=1",  // AlexNet conv3
    "n=1,ci=256,h=28,w=28,co=512,kh=3,kw=3,stride=1,pad=1",  // VGG-16 conv4_1
};

// One config per shape, alternating the sketches and drawing its knobs at random.
TEST(WinogradNchwcOnDevice, EveryNetworkShapeIsCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  for (size_t i = 0; i < kNetworkShapes.size(); ++i) {
    const KernelTemplate& t = i % 2 ? Conv2dWinogradF2NchwcTemplate() : Conv2dWinogradF4NchwcTemplate();
    const Workload w = ParseWorkload("conv2d", kNetworkShapes[i]);
    const ConfigSpace space = t.Space(w, measurer.limits());
    testing::ExpectAllCorrect(measurer, t, w, space, testing::RandomValidConfigs(space, 1, i + 1));
  }
}

// Pruned channels (24, 48, 20) and images whose sides no tile divides (batch 2 for F(2x2),
// unpadded for F(4x4)).
TEST(WinogradNchwcOnDevice, EveryKnobValueIsCorrectOnPrunedChannelsAndPartialTiles) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const auto features = [](std::vector<const char*> knobs) {
    return [knobs](const ConfigSpace& space, const Config& c) {
      std::vector<std::string> f;
      for (const char* knob : knobs) f.push_back(std::string(knob) + "=" + std::to_string(space.Scalar(c, knob)));
      return f;
    };
  };
  // Both tiles with every vector width, channel blocking and input chunk (fused_ci 0: the
  // pre-pass; 32 on 48 channels: a whole chunk and a partial one, on 24: one partial chunk),
  // the tiles per work-item drawn at random with them.
  const Workload f2 = ParseWorkload("conv2d", "n=2,ci=48,h=7,w=9,co=24,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace f2_space = Conv2dWinogradF2NchwcTemplate().Space(f2, measurer.limits());
  testing::ExpectAllCorrect(measurer, Conv2dWinogradF2NchwcTemplate(), f2, f2_space,
                            testing::CoveringSample(f2_space, 3, features({"vec", "tile_oc", "fused_ci"})));
  const Workload f4 = ParseWorkload("conv2d", "n=1,ci=24,h=10,w=11,co=20,kh=3,kw=3,stride=1,pad=0");
  const ConfigSpace f4_space = Conv2dWinogradF4NchwcTemplate().Space(f4, measurer.limits());
  testing::ExpectAllCorrect(measurer, Conv2dWinogradF4NchwcTemplate(), f4, f4_space,
                            testing::CoveringSample(f4_space, 3, features({"vec", "tile_oc", "fused_ci"})));
}

// Sixteen tiles per work-item (F(2x2), and F(4x4) with up to two vectors) are summed
// in two register blocks of eight: with the pre-pass and with the transform in the kernel, on
// 40 tiles (F(4x4): 25), so that the last work-item's second block lies past them.
TEST(WinogradNchwcOnDevice, SixteenTilesInTwoRegisterBlocksAreCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& t = Conv2dWinogradF2NchwcTemplate();
  const Workload w = ParseWorkload("conv2d", "n=2,ci=48,h=7,w=9,co=24,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = t.Space(w, measurer.limits());
  std::vector<Config> configs;
  for (const char* key : {"vec=4;tile_oc=1;tiles=16;work_group=1;unroll_ci=4;fused_ci=0",
                          "vec=4;tile_oc=2;tiles=16;work_group=2;unroll_ci=1;fused_ci=0",
                          "vec=4;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=32"}) {
    const auto c = space.FromKey(key);
    ASSERT_TRUE(c && space.IsValid(*c)) << key;
    configs.push_back(*c);
  }
  testing::ExpectAllCorrect(measurer, t, w, space, configs);
  // F(4x4) takes sixteen tiles by up to two vectors (a 14x14 image whole); four vectors pass
  // the bound on a work-item's vectors.
  const KernelTemplate& t4 = Conv2dWinogradF4NchwcTemplate();
  const Workload w4 = ParseWorkload("conv2d", "n=1,ci=24,h=18,w=18,co=20,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace f4 = t4.Space(w4, measurer.limits());
  std::vector<Config> f4_configs;
  for (const char* key : {"vec=4;tile_oc=1;tiles=16;work_group=1;unroll_ci=4;fused_ci=0",
                          "vec=4;tile_oc=2;tiles=16;work_group=1;unroll_ci=1;fused_ci=16"}) {
    const auto c = f4.FromKey(key);
    ASSERT_TRUE(c && f4.IsValid(*c)) << key;
    f4_configs.push_back(*c);
  }
  testing::ExpectAllCorrect(measurer, t4, w4, f4, f4_configs);
  const auto f4_too_many = f4.FromKey("vec=4;tile_oc=4;tiles=16;work_group=1;unroll_ci=4;fused_ci=0");
  ASSERT_TRUE(f4_too_many.has_value());
  EXPECT_FALSE(f4.IsValid(*f4_too_many));
}

// A pre-pass output past 8 MiB is stored streaming (STREAM_V): F(2x2) on 16 channels at
// 192x192 (9.4 MB), checked against the reference like any other.
TEST(WinogradNchwcOnDevice, AStreamedPrePassIsCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& t = Conv2dWinogradF2NchwcTemplate();
  const Workload w = ParseWorkload("conv2d", "n=1,ci=16,h=192,w=192,co=16,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space = t.Space(w, measurer.limits());
  const auto c = space.FromKey("vec=4;tile_oc=1;tiles=4;work_group=1;unroll_ci=4;fused_ci=0");
  ASSERT_TRUE(c && space.IsValid(*c));
  ASSERT_NE(t.BuildOptions(w, space, *c).find("-D STREAM_V=1"), std::string::npos);
  testing::ExpectAllCorrect(measurer, t, w, space, {*c});
}

}  // namespace
}  // namespace tt
