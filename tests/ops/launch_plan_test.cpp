// Launch plans and buffer layouts (ops/launch_plan.h): what the runtime binds and launches.
#include "ops/launch_plan.h"

#include <gtest/gtest.h>

#include "core/rng.h"

namespace tt {
namespace {

const DeviceLimits kCpu{4096, 512 * 1024, 16};

std::vector<Workload> Workloads() {
  return {ParseWorkload("gemm", "60,33,17"), ParseWorkload("batch_matmul", "3,20,24,12", {"transpose_a"}),
          ParseWorkload("conv2d", "n=2,ci=5,h=9,w=11,co=20,kh=3,kw=3,stride=1,pad=1"),
          ParseWorkload("depthwise_conv2d", "n=1,c=20,h=10,w=9,kh=3,kw=3,stride=2,pad=1")};
}

TEST(BufferLayouts, EveryTemplatesLayoutsHoldExactlyItsBuffers) {
  for (const Workload& w : Workloads())
    for (const KernelTemplate* t : ApplicableTemplates(w)) {
      const auto buffers = t->Buffers(w);
      const auto layouts = BufferLayouts(*t, w);
      ASSERT_EQ(layouts.size(), buffers.size()) << t->name();
      for (size_t i = 0; i < buffers.size(); ++i)
        EXPECT_EQ(LayoutElements(layouts[i].layout, layouts[i].dims), buffers[i].elements)
            << t->name() << " " << buffers[i].name << " " << LayoutName(layouts[i].layout);
    }
}

TEST(BufferLayouts, ChannelVectorSketchesReadBlockedLayouts) {
  const Workload conv = Workloads()[2], dw = Workloads()[3];
  const auto oc_vec = BufferLayouts(*FindTemplate("conv2d_oc_vec"), conv);
  EXPECT_EQ(oc_vec[0].layout, TensorLayout::kNCHW);
  EXPECT_EQ(oc_vec[1].layout, TensorLayout::kOIHW16o);
  EXPECT_EQ(oc_vec[1].dims, (std::vector<int64_t>{20, 5, 3, 3}));
  EXPECT_EQ(oc_vec[2].dims, (std::vector<int64_t>{2, 20, 9, 11}));
  for (const auto& l : BufferLayouts(*FindTemplate("depthwise_conv2d_nchwc"), dw))
    EXPECT_NE(l.layout, PlainLayout(l.layout));
  const auto bmm = BufferLayouts(*FindTemplate("batch_matmul_tiled"), Workloads()[1]);
  EXPECT_EQ(bmm[0].dims, (std::vector<int64_t>{3, 12, 20})) << "X stored K x M when transposed";
}

TEST(LaunchPlan, APrePassWritesTheScratchBufferTheMainKernelReads) {
  const Workload w = Workloads()[0];
  const KernelTemplate& t = *FindTemplate("gemm_tiled");
  const ConfigSpace space = t.Space(w, kCpu);
  Rng rng(3);
  int packed = 0, plain = 0;
  for (int i = 0; i < 20000 && (packed < 3 || plain < 3); ++i) {
    const Config c = space.Random(rng);
    if (!space.IsValid(c)) continue;
    const LaunchPlan plan = PlanLaunch(t, w, space, c);
    EXPECT_EQ(plan.build_options, t.BuildOptions(w, space, c));
    EXPECT_EQ(plan.steps.back().kernel, "matmul");
    EXPECT_EQ(plan.steps.back().geometry.global, t.Geometry(w, space, c).global);
    if (space.Scalar(c, "pack_b")) {
      ++packed;
      ASSERT_EQ(plan.steps.size(), 2u);
      EXPECT_EQ(plan.steps[0].kernel, "pack_b");
      EXPECT_EQ(plan.steps[0].args, (std::vector<int>{1, kScratchArg}));
      EXPECT_EQ(plan.steps[1].args, (std::vector<int>{0, kScratchArg, 2}));
      EXPECT_EQ(plan.scratch_elements, t.PrePassOf(w, space, c)->scratch_elements);
    } else {
      ++plain;
      ASSERT_EQ(plan.steps.size(), 1u);
      EXPECT_EQ(plan.steps[0].args, (std::vector<int>{0, 1, 2}));
      EXPECT_EQ(plan.scratch_elements, 0u);
    }
  }
  EXPECT_EQ(packed, 3);
  EXPECT_EQ(plain, 3);
}

}  // namespace
}  // namespace tt
