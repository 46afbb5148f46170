// The sketches vectorized over channels (conv2d_oc_vec, depthwise_conv2d_nchwc) on the default
// OpenCL device: every vector width computes right where no block divides the channels or the
// rows (pruned channel counts 57, 117, 203; 14-wide rows), the channel-blocked sketch with and
// without its input framed by the pre-pass (pad_input) on odd shapes, one block per row (where
// the kernel drops padding taps when compiling), and both tune end to end with every tuner.
#include <map>
#include <string>
#include <vector>

#include "cli/on_device.h"
#include "cli/tune_with_every_tuner.h"
#include "ops/conv2d_templates.h"
#include "ops/conv_shape.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

TEST(Conv2dOcVecOnDevice, EveryVectorWidthIsCorrectOnPrunedChannelsAndOddRows) {
  testing::ExpectWideVectorsCorrect(
      Conv2dOcVecTemplate(),
      {"n=1,ci=5,h=7,w=14,co=57,kh=3,kw=3,stride=1,pad=1", "n=2,ci=3,h=9,w=14,co=117,kh=3,kw=3,stride=2,pad=1",
       "n=1,ci=7,h=6,w=14,co=203,kh=1,kw=1,stride=1,pad=0",
       "n=1,ci=2,h=8,w=14,co=19,kh=3,kw=3,stride=1,pad=3,dilation=2"});
}

// Pruned channels, strides 1 and 2, a dilated kernel, images whose sides no block divides: both
// pad_input values with the pixel tiles that leave the most tail.
TEST(Conv2dOcVecNchwcOnDevice, PadInputIsCorrectOnOddShapes) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& t = Conv2dOcVecNchwcTemplate();
  for (const char* shape :
       {"n=2,ci=24,h=9,w=11,co=40,kh=3,kw=3,stride=2,pad=1", "n=1,ci=20,h=7,w=7,co=36,kh=3,kw=3,stride=1,pad=1",
        "n=1,ci=17,h=8,w=10,co=19,kh=3,kw=3,stride=1,pad=2,dilation=2"}) {
    const Workload w = ParseWorkload("conv2d", shape);
    const ConfigSpace space = t.Space(w, measurer.limits());
    std::vector<Config> configs;
    for (const int64_t pad_input : {0, 1})
      for (const int64_t tile_ow : {3, 4}) {
        const Config c = testing::Pick(space, {{"tile_oc", {2}},
                                               {"tile_oh", {2}},
                                               {"tile_ow", {tile_ow}},
                                               {"work_group", {1}},
                                               {"pad_input", {pad_input}}});
        ASSERT_TRUE(space.IsValid(c)) << shape << ": " << *space.WhyInvalid(c);
        configs.push_back(c);
      }
    testing::ExpectAllCorrect(measurer, t, w, space, configs);
  }
}

// One pixel block per row (tile_ow = the output width), where the kernel drops the columns and
// rows that read only padding when compiling: left and right edges, strides 1 and 2, a
// dilated kernel, the 7x7 stem's NCHW input; both sketches, with and without the unrolled
// kernel width and the framed input.
TEST(Conv2dOcVecOnDevice, OneBlockPerRowSkipsOnlyPaddingTaps) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  for (const KernelTemplate* t : {&Conv2dOcVecTemplate(), &Conv2dOcVecNchwcTemplate()})
    for (const char* shape :
         {"n=1,ci=17,h=7,w=7,co=20,kh=3,kw=3,stride=2,pad=1", "n=1,ci=8,h=5,w=6,co=16,kh=3,kw=3,stride=1,pad=1",
          "n=1,ci=5,h=6,w=5,co=19,kh=3,kw=3,stride=1,pad=2,dilation=2",
          "n=1,ci=3,h=9,w=9,co=16,kh=7,kw=7,stride=2,pad=3"}) {
      const Workload w = ParseWorkload("conv2d", shape);
      const ConvShape s = ConvShape::Of(w);
      const ConfigSpace space = t->Space(w, measurer.limits());
      std::vector<Config> configs;
      for (const int64_t unroll_kw : {0, 1})
        for (const int64_t pad_input : {0, 1}) {
          if (pad_input && !space.HasKnob("pad_input")) continue;
          std::map<std::string, KnobValue> values = {
              {"tile_oc", {1}}, {"tile_oh", {2}}, {"tile_ow", {s.ow}}, {"work_group", {1}}, {"unroll_kw", {unroll_kw}}};
          if (pad_input) values["pad_input"] = {1};
          const Config c = testing::Pick(space, values);
          ASSERT_TRUE(space.IsValid(c)) << shape << ": " << *space.WhyInvalid(c);
          configs.push_back(c);
        }
      testing::ExpectAllCorrect(measurer, *t, w, space, configs);
    }
}

TEST(ChannelVectorSketchesOnDevice, TuneWithEveryTuner) {
  const std::vector<std::string> tuners = {"random", "grid", "opevo", "ga", "xgb", "gbfs"};
  testing::ExpectTunesWithEveryTuner("conv2d_oc_vec",
                                     "--op conv2d --shape n=1,ci=3,h=6,w=14,co=57,kh=3,kw=3,stride=1,pad=1", tuners);
  testing::ExpectTunesWithEveryTuner(
      "depthwise_conv2d_nchwc", "--op depthwise_conv2d --shape n=1,c=57,h=6,w=14,kh=3,kw=3,stride=2,pad=1", tuners);
}

}  // namespace
}  // namespace tt
