// Valid GEMM configurations compute the right answer on the default OpenCL device: each
// result is checked element by element against the CPU reference by the worker.
#include <algorithm>
#include <map>
#include <set>

#include "cli/on_device.h"
#include "ops/matmul_templates.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

// The kernel variants a config selects: each knob value that changes the code, and each way
// of reading B with and without vectors and with A staged or not.
std::set<std::string> Features(const ConfigSpace& space, const Config& c) {
  const std::string b_source = testing::MatmulBSource(space, c);
  const std::string local_a = std::to_string(space.Scalar(c, "local_a"));
  return {"vec" + std::to_string(space.Scalar(c, "vec")),
          "local_a" + local_a,
          "b_" + b_source,
          "unrolled" + std::to_string(space.Scalar(c, "auto_unroll_max_step") > 0),
          "vector" + std::to_string(space.Scalar(c, "vec") > 1) + "_b_" + b_source,
          "local_a" + local_a + "_b_" + b_source};
}

void ExpectAllCorrect(const std::string& shape, size_t min_configs) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  const Workload w = ParseWorkload("gemm", shape);
  const ConfigSpace space = gemm.Space(w, measurer.limits());
  const auto sample = testing::CoveringSample(space, 11, Features);
  ASSERT_GE(sample.size(), min_configs);
  testing::ExpectAllCorrect(measurer, gemm, w, space, sample);
}

TEST(GemmOnDevice, EveryVectorStagingAndPackingVariantIsCorrect) { ExpectAllCorrect("48,40,24", 6); }

TEST(GemmOnDevice, PrimeAndOddShapesAreCorrect) { ExpectAllCorrect("7,13,5", 4); }

// A packed B whose last panel passes N (13 rounded up to 16, 1000 to 1008 or 1024), with a K
// remainder step: the panel's columns past N repeat the last one and are never stored.
TEST(GemmOnDevice, PackedPanelsPastTheLastColumnAreCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  for (const char* shape : {"7,13,29", "5,1000,67"}) {
    const Workload w = ParseWorkload("gemm", shape);
    const ConfigSpace space = gemm.Space(w, measurer.limits());
    std::vector<Config> sample;
    for (const Config& c : testing::RandomValidConfigs(space, 2000, 13))
      if (sample.size() < 2 && space.Scalar(c, "pack_b") && testing::PartialTiles(space, c) == "nk")
        sample.push_back(c);
    ASSERT_EQ(sample.size(), 2u) << shape;
    testing::ExpectAllCorrect(measurer, gemm, w, space, sample);
  }
}

// A random valid config whose last tiles are partial along each of `dims`.
void ExpectPartialTilesCorrect(const std::string& shape, const std::string& dims) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  const Workload w = ParseWorkload("gemm", shape);
  const ConfigSpace space = gemm.Space(w, measurer.limits());
  std::vector<Config> sample;
  for (const Config& c : testing::RandomValidConfigs(space, 200, 3))
    if (testing::PartialTiles(space, c) == dims && sample.empty()) sample.push_back(c);
  ASSERT_EQ(sample.size(), 1u) << shape;
  testing::ExpectAllCorrect(measurer, gemm, w, space, sample);
}

// 13 -> 16, 29 -> 32 and 1000 -> 1008 or 1024 are rounded; 17 and 33 not (a quarter more), 65 -> 80.
TEST(GemmOnDevice, PartialTilesOfOddShapesAreCorrect) {
  ExpectPartialTilesCorrect("7,13,29", "nk");
  ExpectPartialTilesCorrect("1,1000,512", "n");
  ExpectPartialTilesCorrect("17,33,65", "k");
}

// Prime N and K at the size of 1024^3, with the large tiles that make it fast: vector,
// local-memory and packed-B variants, partial tiles along every dimension with a K remainder
// step of 3.
TEST(GemmOnDevice, LargeTilesOfAPrimeSizedGemmAreCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  const Workload w = ParseWorkload("gemm", "1023,1021,1019");
  const ConfigSpace space = gemm.Space(w, measurer.limits());
  using Values = std::map<std::string, KnobValue>;
  std::vector<Values> picks = {{{"tile_x", {32, 1, 8, 4}},
                                {"tile_y", {16, 1, 4, 16}},
                                {"tile_k", {128, 4, 2}},
                                {"vec", {16}},
                                {"local_b", {1}},
                                {"auto_unroll_max_step", {16}}},
                               {{"tile_x", {64, 2, 4, 2}},
                                {"tile_y", {32, 2, 4, 4}},
                                {"tile_k", {128, 2, 4}},
                                {"vec", {4}},
                                {"local_a", {1}},
                                {"local_b", {1}},
                                {"auto_unroll_max_step", {512}}},
                               {{"tile_x", {64, 1, 4, 4}},
                                {"tile_y", {128, 1, 2, 4}},
                                {"tile_k", {128, 8, 1}},
                                {"vec", {4}},
                                {"auto_unroll_max_step", {16}}},
                               {{"tile_x", {32, 1, 8, 4}},
                                {"tile_y", {16, 1, 4, 16}},
                                {"tile_k", {128, 4, 2}},
                                {"vec", {16}},
                                {"pack_b", {1}},
                                {"auto_unroll_max_step", {16}}}};
  const std::vector<int64_t> widths = FloatVectorWidths(measurer.limits(), 1);
  std::vector<Config> configs;
  for (Values& pick : picks) {
    if (std::find(widths.begin(), widths.end(), pick["vec"][0]) == widths.end()) continue;
    const Config c = testing::Pick(space, pick);
    ASSERT_TRUE(space.IsValid(c)) << space.Key(c) << ": " << *space.WhyInvalid(c);
    EXPECT_EQ(testing::PartialTiles(space, c), "mnk") << space.Key(c);
    configs.push_back(c);
  }
  ASSERT_GE(configs.size(), 2u);
  testing::ExpectAllCorrect(measurer, gemm, w, space, configs);
}

// A work-group of 4096 items with both tiles in local memory: POCL keeps what lives across the
// barriers in stack arrays sized by the work-group, which overflowed the driver threads'
// default 8 MiB stack and crashed the worker (signal 11) until the worker enlarged them.
TEST(GemmOnDevice, LargeLocalMemoryWorkGroupsDoNotOverflowTheDriversStack) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  if (measurer.limits().max_work_group_size < 4096) GTEST_SKIP() << "the device's work-groups are smaller";
  const Workload w = ParseWorkload("gemm", "1024,1024,128");
  const ConfigSpace space = gemm.Space(w, measurer.limits());
  const Config c = testing::Pick(space, {{"tile_x", {8, 1, 64, 2}},
                                         {"tile_y", {8, 1, 64, 2}},
                                         {"tile_k", {2, 8, 8}},
                                         {"vec", {1}},
                                         {"local_a", {1}},
                                         {"local_b", {1}},
                                         {"auto_unroll_max_step", {512}}});
  ASSERT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  testing::ExpectAllCorrect(measurer, gemm, w, space, {c});
}

// Up to the native width: 16 floats on an AVX-512 device.
TEST(GemmOnDevice, WideVectorsAreCorrect) {
  testing::ExpectWideVectorsCorrect(GemmTiledTemplate(), {"24,48,16", "9,32,7"});
}

// The row sketches (B row-major, and B in panels of 16 columns) on one to eight rows: columns
// past N (1000 and 13 are no multiple of any vec x nv), edge work-items, rounded-up work-groups
// and each K unroll.
TEST(GemmRowsOnDevice, EveryWidthUnrollAndEdgeIsCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  for (const KernelTemplate* sketch : {&GemmRowsTemplate(), &GemmRowsPanelsTemplate()})
    for (const char* shape : {"1,1000,512", "3,13,24", "8,70,9"}) {
      const KernelTemplate& rows = *sketch;
      const Workload w = ParseWorkload("gemm", shape);
      const ConfigSpace space = rows.Space(w, measurer.limits());
      const auto sample = testing::CoveringSample(space, 5, [](const ConfigSpace& sp, const Config& c) {
        return std::set<std::string>{
            "vec" + std::to_string(sp.Scalar(c, "vec")), "nv" + std::to_string(sp.Scalar(c, "nv")),
            "unroll" + std::to_string(sp.Scalar(c, "unroll_k")), "wg" + std::to_string(sp.Scalar(c, "work_group") > 1)};
      });
      ASSERT_GE(sample.size(), 3u) << shape;
      testing::ExpectAllCorrect(measurer, rows, w, space, sample);
    }
}

}  // namespace
}  // namespace tt
