#include "schedule/sketch_prior.h"

#include <gtest/gtest.h>

#include "schedule/sketch_selector.h"

namespace tt {
namespace {

Workload Conv(int64_t ci, int64_t co, int64_t hw, int64_t k, int64_t stride) {
  return {"conv2d",
          {{"n", 1},
           {"ci", ci},
           {"h", hw},
           {"w", hw},
           {"co", co},
           {"kh", k},
           {"kw", k},
           {"stride", stride},
           {"pad", k / 2},
           {"dilation", 1}}};
}

const KernelTemplate& Sketch(const char* name) { return *FindTemplate(name); }

DeviceInfo Device(const char* type) {
  DeviceInfo d;
  d.type = type;
  return d;
}

TEST(WorkloadSimilarity, KernelSizeAndStrideCountMoreThanChannels) {
  const Workload a = Conv(64, 64, 56, 3, 1);
  EXPECT_DOUBLE_EQ(WorkloadSimilarity(a, a), 1);
  const double more_channels = WorkloadSimilarity(a, Conv(128, 128, 56, 3, 1));
  const double other_kernel = WorkloadSimilarity(a, Conv(64, 64, 56, 1, 2));
  EXPECT_LT(more_channels, 1);
  EXPECT_LT(other_kernel, more_channels);
  EXPECT_EQ(WorkloadSimilarity(a, {"gemm", {{"m", 1}}}), 0);
}

TEST(SketchPriors, FollowTheOtherWorkloadsWeightedBySimilarity) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_oc_vec"), &Sketch("conv2d_direct_global"),
                                                    &Sketch("conv2d_winograd")};
  const Workload task = Conv(64, 64, 56, 3, 1);
  const std::vector<SketchEvidence> evidence{
      {Conv(128, 128, 28, 3, 1), {{"conv2d_oc_vec", 1e-3}, {"conv2d_direct_global", 8e-3}}},
      {Conv(256, 256, 14, 3, 1), {{"conv2d_oc_vec", 1e-3}, {"conv2d_direct_global", 8e-3}, {"conv2d_winograd", 2e-3}}},
      {task, {{"conv2d_oc_vec", 9e-3}, {"conv2d_direct_global", 1e-3}}},  // the task itself: left out
      {Conv(64, 64, 56, 1, 2), {{"conv2d_oc_vec", 1e-3}}},                // one sketch: says nothing
  };
  const auto priors = SketchPriors(task, sketches, evidence, Device("cpu"));
  ASSERT_EQ(priors.size(), 3u);
  EXPECT_GT(priors[0].ratio, 0.98);  // fastest wherever measured; the device prefers channel blocks a little
  EXPECT_EQ(priors[0].workloads, 2);
  EXPECT_LT(priors[1].ratio, 0.25);  // 1/8 on both, pulled a little towards the device's 1
  EXPECT_GT(priors[1].ratio, 0.125);
  EXPECT_EQ(priors[1].workloads, 2);
  EXPECT_LT(priors[2].ratio, 0.75);
  EXPECT_EQ(priors[2].workloads, 1);
  EXPECT_NE(DescribePrior(priors[1], *sketches[1], task, Device("cpu")).find("2 other workloads"), std::string::npos);
}

// A loss within reach counts as far as the loser was tried as often as the winner: one first
// guess of F(4x4) at a third of F(2x2)'s best of fifty leaves F(4x4) a first look elsewhere; the
// same loss after as many trials as the winner's does not, nor a loss that cannot be won back.
TEST(SketchPriors, ALossCountsAsFarAsTheTwoWereTriedAlike) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_winograd_f2_nchwc"),
                                                    &Sketch("conv2d_winograd_f4_nchwc")};
  const Workload task = Conv(128, 128, 28, 3, 1);
  const auto prior = [&](int64_t f4_trials, bool counted, double f4_time_s = 2.9e-3) {
    SketchEvidence seven{Conv(512, 512, 7, 3, 1),
                         {{"conv2d_winograd_f2_nchwc", 1e-3}, {"conv2d_winograd_f4_nchwc", f4_time_s}}};
    if (counted) seven.trials = {{"conv2d_winograd_f2_nchwc", 57}, {"conv2d_winograd_f4_nchwc", f4_trials}};
    return SketchPriors(task, sketches, {seven}, Device("cpu"))[1].ratio;
  };
  EXPECT_GE(prior(1, true), kNothingAgainst);
  EXPECT_LT(prior(57, true), kNothingAgainst);
  EXPECT_LT(prior(200, true), kNothingAgainst);
  EXPECT_DOUBLE_EQ(prior(57, true), prior(0, false)) << "trials unknown: the loss counts in full";
  EXPECT_GT(prior(10, true), prior(57, true));
  EXPECT_DOUBLE_EQ(prior(1, true, 6e-3), prior(0, false, 6e-3)) << "six times slower cannot win: counted in full";
}

TEST(SketchPriors, WithoutEvidenceLocalMemorySketchesComeLastOnACpuOnly) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_direct_local"), &Sketch("conv2d_oc_vec")};
  const Workload task = Conv(64, 64, 56, 3, 1);
  const auto cpu = SketchPriors(task, sketches, {}, Device("cpu"));
  EXPECT_LT(cpu[0].ratio, cpu[1].ratio);
  EXPECT_GE(cpu[1].ratio, kNothingAgainst);
  EXPECT_NE(DescribePrior(cpu[0], *sketches[0], task, Device("cpu")).find("local memory"), std::string::npos);
  const auto gpu = SketchPriors(task, sketches, {}, Device("gpu"));
  EXPECT_DOUBLE_EQ(gpu[0].ratio, 1);
}

TEST(SketchPriors, WithoutEvidenceChannelVectorSketchesComeFirstOnACpuOnly) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_direct_vec"), &Sketch("conv2d_oc_vec_nchwc"),
                                                    &Sketch("conv2d_winograd")};
  const Workload task = Conv(64, 64, 56, 3, 1);
  const auto cpu = SketchPriors(task, sketches, {}, Device("cpu"));
  EXPECT_GT(cpu[1].ratio, cpu[0].ratio);
  EXPECT_GT(cpu[1].ratio, cpu[2].ratio);
  EXPECT_GE(cpu[0].ratio, kNothingAgainst) << "still tried before any sketch gets a second look";
  EXPECT_NE(DescribePrior(cpu[0], *sketches[0], task, Device("cpu")).find("vectors over channels"), std::string::npos);
  const auto gpu = SketchPriors(task, sketches, {}, Device("gpu"));
  for (size_t i = 0; i < sketches.size(); ++i)
    EXPECT_EQ(gpu[i].ratio == 1, sketches[i]->stages_in_local_memory()) << sketches[i]->name();
}

// The first round measures the sketch with the highest prior: on a CPU without evidence, the
// one that multiplies least where it applies, on channel blocks, before the direct ones.
TEST(SketchPriors, WithoutEvidenceACpuOrdersWinogradThenChannelBlocksThenPlainChannels) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_oc_vec"), &Sketch("conv2d_oc_vec_nchwc"),
                                                    &Sketch("conv2d_winograd_f4_nchwc"),
                                                    &Sketch("conv2d_winograd_f2_nchwc"), &Sketch("conv2d_direct_vec")};
  const Workload task = Conv(96, 160, 20, 3, 1);
  const auto cpu = SketchPriors(task, sketches, {}, Device("cpu"));
  EXPECT_DOUBLE_EQ(cpu[2].ratio, 1);
  EXPECT_GT(cpu[2].ratio, cpu[3].ratio);
  EXPECT_GT(cpu[3].ratio, cpu[1].ratio);
  EXPECT_GT(cpu[1].ratio, cpu[0].ratio);
  EXPECT_GT(cpu[0].ratio, cpu[4].ratio);
  for (const SketchPrior& prior : cpu) EXPECT_GE(prior.ratio, kNothingAgainst);
  EXPECT_NE(DescribePrior(cpu[1], *sketches[1], task, Device("cpu")).find("Winograd"), std::string::npos);
  EXPECT_NE(DescribePrior(cpu[0], *sketches[0], task, Device("cpu")).find("channel-blocked"), std::string::npos);
  EXPECT_EQ(DescribePrior(cpu[2], *sketches[2], task, Device("cpu")), "no evidence yet");
}

// Of the two Winograd tiles, the larger first where the output holds 16 of its 4x4 tiles
// (14x14 and up), the smaller first below, where F(4x4)'s larger transformed weights serve few
// tiles; either way the other still gets its look before any second one.
TEST(SketchPriors, WithoutEvidenceTheLargerWinogradTileGoesFirstOnLargerImages) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_winograd_f2_nchwc"),
                                                    &Sketch("conv2d_winograd_f4_nchwc")};
  for (const int64_t hw : {14, 28, 56, 224}) {
    const auto cpu = SketchPriors(Conv(256, 256, hw, 3, 1), sketches, {}, Device("cpu"));
    EXPECT_GT(cpu[1].ratio, cpu[0].ratio) << hw;
    EXPECT_GE(cpu[0].ratio, kNothingAgainst) << hw;
  }
  for (const int64_t hw : {7, 12}) {
    const Workload task = Conv(512, 512, hw, 3, 1);
    const auto cpu = SketchPriors(task, sketches, {}, Device("cpu"));
    EXPECT_GT(cpu[0].ratio, cpu[1].ratio) << hw;
    EXPECT_GE(cpu[1].ratio, kNothingAgainst) << hw;
    EXPECT_NE(DescribePrior(cpu[1], *sketches[1], task, Device("cpu")).find("F(2x2,3x3) goes first"),
              std::string::npos);
  }
}

TEST(SketchPriors, WithoutEvidenceLocalMemorySketchesComeFirstOnAGpu) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("conv2d_oc_vec"), &Sketch("conv2d_direct_local")};
  const Workload task = Conv(64, 64, 56, 3, 1);
  const auto gpu = SketchPriors(task, sketches, {}, Device("gpu"));
  EXPECT_LT(gpu[0].ratio, gpu[1].ratio);
  EXPECT_DOUBLE_EQ(gpu[1].ratio, 1);
  EXPECT_GE(gpu[0].ratio, kNothingAgainst) << "still tried before any sketch gets a second look";
  EXPECT_NE(DescribePrior(gpu[0], *sketches[0], task, Device("gpu")).find("on a GPU"), std::string::npos);
}

// A dense layer at batch 1 to 8: the sketch written for a few rows goes first on either device
// class, before the general tiled GEMM (which the first round measured first before).
TEST(SketchPriors, WithoutEvidenceTheSketchWrittenForTheShapeGoesFirst) {
  const std::vector<const KernelTemplate*> sketches{&Sketch("gemm_tiled"), &Sketch("gemm_rows")};
  const Workload dense = ParseWorkload("gemm", "1,4096,4096");
  for (const char* type : {"cpu", "gpu"}) {
    const auto priors = SketchPriors(dense, sketches, {}, Device(type));
    EXPECT_GT(priors[1].ratio, priors[0].ratio) << type;
    EXPECT_EQ(DescribePrior(priors[1], *sketches[1], dense, Device(type)),
              "no evidence; written for shapes like this one");
  }
  EXPECT_TRUE(Sketch("gemm_rows").WhyNotApplicable(ParseWorkload("gemm", "9,4096,4096")))
      << "a specialist turns other shapes away, so it never outranks the general sketch there";
}

// Of the gemm sketches as registered, a dense layer on a CPU looks first at the one that reads
// its weights in panels (contiguous streams); past 8 rows neither row sketch applies.
TEST(SketchPriors, ADenseLayerOnACpuLooksFirstAtWeightsInPanels) {
  const Workload dense = ParseWorkload("gemm", "1,1000,4096");
  const auto sketches = ApplicableTemplates(dense);
  ASSERT_EQ(sketches.size(), 3u);
  const auto priors = SketchPriors(dense, sketches, {}, Device("cpu"));
  size_t first = 0;
  for (size_t s = 1; s < sketches.size(); ++s)
    if (priors[s].ratio > priors[first].ratio) first = s;
  EXPECT_EQ(sketches[first]->name(), "gemm_rows_panels");
  EXPECT_TRUE(Sketch("gemm_rows_panels").WhyNotApplicable(ParseWorkload("gemm", "9,4096,4096")));
}

}  // namespace
}  // namespace tt
