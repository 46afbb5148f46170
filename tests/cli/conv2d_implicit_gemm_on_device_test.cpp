// conv2d_implicit_gemm on the default OpenCL device, against the CPU reference: every vector
// width, with and without the im2col tile staged, on pruned channel counts (57 -> 117, 203),
// 7x7 and 14-wide outputs, 1x1 stride 2, a 7x7 stride-2 stem and dilation; each way of reading
// the input; the `templates` listing; and a short tuning run with every tuner.
#include "cli/on_device.h"
#include "cli/tune_with_every_tuner.h"
#include "ops/conv2d_templates.h"
#include "ops/template_test_util.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

using testing::ExpectAllCorrect;
using testing::Pick;
using testing::QuickMeasureOptions;

// A random valid config with this vector width and local_b.
Config ConfigWith(const ConfigSpace& space, int64_t width, int64_t local_b) {
  for (const Config& c : testing::RandomValidConfigs(space, 3000, 11))
    if (space.Scalar(c, "vec") == width && space.Scalar(c, "local_b") == local_b) return c;
  ADD_FAILURE() << "no valid config with vec " << width << " and local_b " << local_b;
  return space.FromIndex(0);
}

// Two configs per shape, the shapes taking every vector width and both ways of reading the
// input in turn.
TEST(Conv2dImplicitGemmOnDevice, EveryWidthAndStagingIsCorrectOnPrunedAndOddShapes) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const std::vector<int64_t> widths = FloatVectorWidths(measurer.limits(), 4);
  const KernelTemplate& t = Conv2dImplicitGemmTemplate();
  const std::vector<const char*> shapes = {
      "n=1,ci=57,h=7,w=7,co=117,kh=3,kw=3,stride=1,pad=1", "n=2,ci=5,h=9,w=14,co=203,kh=1,kw=1,stride=1,pad=0",
      "n=1,ci=6,h=13,w=14,co=57,kh=1,kw=1,stride=2,pad=0", "n=1,ci=3,h=23,w=21,co=20,kh=7,kw=7,stride=2,pad=3",
      "n=1,ci=2,h=8,w=14,co=19,kh=3,kw=3,stride=1,pad=3,dilation=2"};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Workload w = ParseWorkload("conv2d", shapes[i]);
    const ConfigSpace space = t.Space(w, measurer.limits());
    const int64_t local_b = static_cast<int64_t>(i % 2);
    ExpectAllCorrect(measurer, t, w, space,
                     {ConfigWith(space, widths[i % widths.size()], local_b),
                      ConfigWith(space, widths[(i + 1) % widths.size()], 1 - local_b)});
  }
}

// The three ways of reading the input, each on configs chosen to take it: runs of 4 pixels
// inside 16-wide output rows (the inner work-items read without bounds checks, the border
// ones check every input), and runs of whole output rows (columns known when compiled, rows
// checked), including runs that cross from one image to the next and rows past the last pixel.
TEST(Conv2dImplicitGemmOnDevice, InteriorAndWholeRowPathsAreCorrect) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const KernelTemplate& t = Conv2dImplicitGemmTemplate();
  const std::vector<std::pair<const char*, KnobValue>> cases = {
      {"n=1,ci=4,h=10,w=16,co=20,kh=3,kw=3,stride=1,pad=1", {10, 2, 2, 4}},  // N = 160
      {"n=1,ci=3,h=21,w=32,co=17,kh=3,kw=3,stride=2,pad=1", {11, 2, 2, 4}},  // N = 11 * 16
      {"n=2,ci=3,h=7,w=7,co=20,kh=3,kw=3,stride=1,pad=1", {7, 1, 1, 14}},    // runs of 2 rows
      {"n=1,ci=3,h=7,w=7,co=20,kh=3,kw=3,stride=1,pad=1", {1, 1, 8, 7}},     // N = 49 -> 56
      {"n=1,ci=2,h=12,w=13,co=17,kh=3,kw=3,stride=2,pad=2,dilation=2", {3, 1, 2, 7}}};
  for (const auto& [shape, tile_y] : cases) {
    const Workload w = ParseWorkload("conv2d", shape);
    const ConfigSpace space = t.Space(w, measurer.limits());
    const Config c = Pick(space, {{"tile_x", {2, 1, 2, 8}},
                                  {"tile_y", tile_y},
                                  {"tile_k", {1, 9, ConvShape::Of(w).ci}},
                                  {"vec", {4}},
                                  {"local_b", {0}}});
    ASSERT_TRUE(space.IsValid(c)) << shape << ": " << *space.WhyInvalid(c);
    ExpectAllCorrect(measurer, t, w, space, {c});
  }
}

TEST(Conv2dImplicitGemmCli, TemplatesListsItUnderConv2d) {
  testing::ScratchDir dir;
  const auto r = testing::RunProgram(std::string(TENSORTUNE_BIN) + " templates", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t conv = r.out.find("\nconv2d:"), next = r.out.find("\ndepthwise_conv2d:");
  const size_t listed = r.out.find("template conv2d_implicit_gemm");
  ASSERT_NE(listed, std::string::npos) << r.out;
  EXPECT_TRUE(conv < listed && listed < next) << r.out;
}

TEST(Conv2dImplicitGemmOnDevice, TunesWithEveryTuner) {
  std::vector<std::string> tuners = TunerNames();
  tuners.emplace_back("auto");
  testing::ExpectTunesWithEveryTuner("conv2d_implicit_gemm",
                                     "--op conv2d --shape n=1,ci=3,h=7,w=7,co=57,kh=3,kw=3,stride=1,pad=1", tuners);
}

}  // namespace
}  // namespace tt
