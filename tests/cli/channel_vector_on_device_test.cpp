// The sketches vectorized over channels (conv2d_oc_vec, depthwise_conv2d_nchwc) on the default
// OpenCL device: every vector width computes right where no block divides the channels or the
// rows (pruned channel counts 57, 117, 203; 14-wide rows), and both tune end to end with every
// tuner.
#include "cli/on_device.h"
#include "cli/tune_with_every_tuner.h"
#include "ops/conv2d_templates.h"

namespace tt {
namespace {

TEST(Conv2dOcVecOnDevice, EveryVectorWidthIsCorrectOnPrunedChannelsAndOddRows) {
  testing::ExpectWideVectorsCorrect(
      Conv2dOcVecTemplate(),
      {"n=1,ci=5,h=7,w=14,co=57,kh=3,kw=3,stride=1,pad=1", "n=2,ci=3,h=9,w=14,co=117,kh=3,kw=3,stride=2,pad=1",
       "n=1,ci=7,h=6,w=14,co=203,kh=1,kw=1,stride=1,pad=0",
       "n=1,ci=2,h=8,w=14,co=19,kh=3,kw=3,stride=1,pad=3,dilation=2"});
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
