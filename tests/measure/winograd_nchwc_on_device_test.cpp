// Winograd on channel blocks (conv2d_winograd_f2_nchwc, conv2d_winograd_f4_nchwc) on the default
// OpenCL device: the worker builds each config, runs the input-transform pre-pass and the main
// kernel, and verifies the output against the CPU reference within the sketch's tolerance, on
// every 3x3 stride-1 convolution of the built-in networks (batch 1; VGG-16's 224- and 112-wide
// layers at a quarter of their width and height, the same channels) and on pruned channel
// counts that no block divides.
#include "cli/on_device.h"
#include "ops/conv2d_templates.h"

namespace tt {
namespace {

const std::vector<const char*> kNetworkShapes = {
    // AlexNet conv3-5
    "n=1,ci=192,h=13,w=13,co=384,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=384,h=13,w=13,co=256,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=256,h=13,w=13,co=256,kh=3,kw=3,stride=1,pad=1",
    // ResNet-18 layer1-4
    "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1",
    // VGG-16 conv2_1 to conv5 (conv1_1 reads a 3-channel image: not applicable; conv1_2 and
    // conv2_2 at a quarter are ResNet-18's layer1 and layer2)
    "n=1,ci=64,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=128,h=56,w=56,co=256,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=256,h=56,w=56,co=256,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=256,h=28,w=28,co=512,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=512,h=28,w=28,co=512,kh=3,kw=3,stride=1,pad=1",
    "n=1,ci=512,h=14,w=14,co=512,kh=3,kw=3,stride=1,pad=1",
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
// unpadded for F(4x4)): configs that together cover every vector width, channel blocking and
// number of tiles per work-item.
TEST(WinogradNchwcOnDevice, EveryKnobValueIsCorrectOnPrunedChannelsAndPartialTiles) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const auto features = [](const ConfigSpace& space, const Config& c) {
    std::vector<std::string> f;
    for (const char* knob : {"vec", "tile_oc", "tiles"})
      f.push_back(std::string(knob) + "=" + std::to_string(space.Scalar(c, knob)));
    return f;
  };
  const std::pair<const KernelTemplate*, const char*> cases[] = {
      {&Conv2dWinogradF2NchwcTemplate(), "n=2,ci=48,h=7,w=9,co=24,kh=3,kw=3,stride=1,pad=1"},
      {&Conv2dWinogradF4NchwcTemplate(), "n=1,ci=24,h=10,w=11,co=20,kh=3,kw=3,stride=1,pad=0"}};
  for (const auto& [t, shape] : cases) {
    const Workload w = ParseWorkload("conv2d", shape);
    const ConfigSpace space = t->Space(w, measurer.limits());
    testing::ExpectAllCorrect(measurer, *t, w, space, testing::CoveringSample(space, 3, features));
  }
}

}  // namespace
}  // namespace tt
