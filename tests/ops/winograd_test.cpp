// Tier: unit
// Winograd on channel blocks (ops/winograd.h, conv2d_winograd_f{2,4}_nchwc): the weight
// transform and its inverse, the sketches' buffers, layouts and reference, and the numerics:
// the transforms computed in float stay within the error bound docs/templates.md states against
// a double-precision direct convolution, on typical and on adversarial data.
#include "ops/winograd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/channel_blocking.h"
#include "ops/conv2d_templates.h"
#include "ops/launch_plan.h"

namespace tt {
namespace {

std::vector<float> SmallIntegers(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(count);
  for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 5) - 2);
  return v;
}

std::vector<float> Uniform(size_t count, uint32_t seed, float low, float high) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// The direct convolution in double precision (NCHW, OIHW).
std::vector<double> DirectDouble(const ConvShape& s, const std::vector<float>& in, const std::vector<float>& wt) {
  std::vector<double> out(s.output_elements(), 0.0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.co; ++o)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          double sum = 0;
          for (int64_t c = 0; c < s.ci; ++c)
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = y - s.pad + ky, ix = x - s.pad + kx;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                sum += static_cast<double>(in[static_cast<size_t>(((n * s.ci + c) * s.h + iy) * s.w + ix)]) *
                       wt[static_cast<size_t>(((o * s.ci + c) * 3 + ky) * 3 + kx)];
              }
          out[static_cast<size_t>(((n * s.co + o) * s.oh + y) * s.ow + x)] = sum;
        }
  return out;
}

// max |got - want| / max |want|: the error relative to the output's scale.
double RelativeError(const std::vector<float>& got, const std::vector<double>& want) {
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return error / scale;
}

ConvShape Shape(const char* text) { return ConvShape::Of(ParseWorkload("conv2d", text)); }

TEST(WinogradWeights, TransformIsExactOnIntegersAndInvertsExactly) {
  const ConvShape s = Shape("n=1,ci=3,h=8,w=8,co=20,kh=3,kw=3,stride=1,pad=1");
  const std::vector<float> oihw = SmallIntegers(static_cast<size_t>(s.co * s.ci * 9), 7);
  for (const int m : {2, 4}) {
    const int a = m + 2;
    const std::vector<float> u = TransformWeights(s, m, oihw.data());
    ASSERT_EQ(u.size(), static_cast<size_t>(2 * 16 * a * a * s.ci));
    for (const float x : u) EXPECT_EQ(x, std::round(x));  // G' has integer entries
    // Channel 17 (block 1, lane 1), component 0 of input channel 2 is g[0][0]; its padding lanes zero.
    EXPECT_EQ(u[static_cast<size_t>(((1 * a * a + 0) * s.ci + 2) * 16 + 1)], oihw[(17 * 3 + 2) * 9]);
    for (int lane = 4; lane < 16; ++lane) EXPECT_EQ(u[static_cast<size_t>((1 * a * a * s.ci + 5) * 16 + lane)], 0.0f);
    EXPECT_EQ(UntransformWeights(s, m, u.data()), oihw);
  }
  EXPECT_THROW(WinogradF(3), std::invalid_argument);
}

TEST(WinogradNchwcTemplates, BlockedActivationsTransformedWeightsAndTheirReference) {
  const Workload w = ParseWorkload("conv2d", "n=2,ci=24,h=7,w=9,co=20,kh=3,kw=3,stride=1,pad=1");
  const ConvShape s = ConvShape::Of(w);
  for (const KernelTemplate* t : {&Conv2dWinogradF2NchwcTemplate(), &Conv2dWinogradF4NchwcTemplate()}) {
    const int m = t->winograd_tile();
    const auto layouts = BufferLayouts(*t, w);
    EXPECT_EQ(layouts[0].layout, TensorLayout::kNCHW16c);
    EXPECT_EQ(layouts[1].layout, m == 2 ? TensorLayout::kWinogradF2 : TensorLayout::kWinogradF4);
    EXPECT_EQ(layouts[2].layout, TensorLayout::kNCHW16c);
    const auto buffers = t->Buffers(w);
    EXPECT_EQ(buffers[1].elements, LayoutElements(layouts[1].layout, layouts[1].dims));
    // The measurer's random draw becomes transformed weights of the plain filter drawn first.
    std::vector<float> drawn = SmallIntegers(buffers[1].elements, 3);
    const std::vector<float> oihw(drawn.begin(), drawn.begin() + s.co * s.ci * 9);
    t->DeriveInput(w, 1, drawn);
    EXPECT_EQ(drawn, TransformWeights(s, m, oihw.data()));
    // Its reference is the plain reference on the unblocked input, blocked.
    const std::vector<float> nchw = SmallIntegers(s.input_elements(), 4);
    const std::vector<float> blocked_in = BlockChannels(nchw.data(), s.n, s.ci, s.h * s.w);
    std::vector<float> plain(s.output_elements()), got(buffers[2].elements);
    Conv2dDirectGlobalTemplate().Reference(w, {nchw.data(), oihw.data()}, plain.data());
    t->Reference(w, {blocked_in.data(), drawn.data()}, got.data());
    EXPECT_EQ(got, BlockChannels(plain.data(), s.n, s.co, s.oh * s.ow));
    // A pre-pass transforms the input into a scratch buffer.
    const ConfigSpace space = t->Space(w, kNoDeviceLimits);
    const auto pre = t->PrePassOf(w, space, space.FromIndex(0));
    ASSERT_TRUE(pre.has_value());
    EXPECT_EQ(pre->input, 0u);
    EXPECT_EQ(pre->scratch_elements,
              static_cast<size_t>(2 * ((7 + m - 1) / m) * ((9 + m - 1) / m) * (m + 2) * (m + 2) * 32));
  }
}

// A pre-pass whose output is far larger than a core's caches (more than 8 MiB) stores it
// streaming (STREAM_V=1); smaller ones keep plain stores, which leave it in the caches.
TEST(WinogradNchwcTemplates, StreamAPrePassOutputOnlyWhereItOutgrowsTheCaches) {
  const auto stream = [](const KernelTemplate& t, const char* shape) {
    const Workload w = ParseWorkload("conv2d", shape);
    const ConfigSpace space = t.Space(w, kNoDeviceLimits);
    const std::string options = t.BuildOptions(w, space, space.FromIndex(0));
    EXPECT_NE(options.find("STREAM_V"), std::string::npos) << options;
    return options.find("-D STREAM_V=1") != std::string::npos;
  };
  const KernelTemplate& f2 = Conv2dWinogradF2NchwcTemplate();
  const KernelTemplate& f4 = Conv2dWinogradF4NchwcTemplate();
  // VGG-16's 224x224 layer: 28.9 MB (F(4x4)); its 112x112 layer of 128 channels: 14.5 MB.
  EXPECT_TRUE(stream(f4, "n=1,ci=64,h=224,w=224,co=64,kh=3,kw=3,stride=1,pad=1"));
  EXPECT_TRUE(stream(f4, "n=1,ci=128,h=112,w=112,co=128,kh=3,kw=3,stride=1,pad=1"));
  // 7.2 MB (VGG-16's 56x56 layers of 256 channels), and ResNet-18's 56x56 layer (1.8 MB).
  EXPECT_FALSE(stream(f4, "n=1,ci=256,h=56,w=56,co=256,kh=3,kw=3,stride=1,pad=1"));
  EXPECT_FALSE(stream(f4, "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1"));
  // F(2x2)'s output is 4x its input: 16 channels at 192x192 pass the bound (9.4 MB), at 176x176 not.
  EXPECT_TRUE(stream(f2, "n=1,ci=16,h=192,w=192,co=16,kh=3,kw=3,stride=1,pad=1"));
  EXPECT_FALSE(stream(f2, "n=1,ci=16,h=176,w=176,co=16,kh=3,kw=3,stride=1,pad=1"));
}

TEST(WinogradNchwcTemplates, ApplyTo3x3Stride1OnChannelBlocksOnly) {
  const KernelTemplate& t = Conv2dWinogradF4NchwcTemplate();
  EXPECT_FALSE(t.WhyNotApplicable(ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1")));
  EXPECT_TRUE(t.WhyNotApplicable(ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=2,pad=1")));
  EXPECT_TRUE(t.WhyNotApplicable(ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=1,kw=1,stride=1,pad=0")));
  EXPECT_TRUE(t.WhyNotApplicable(ParseWorkload("conv2d", "n=1,ci=3,h=224,w=224,co=64,kh=3,kw=3,stride=1,pad=1")));
}

struct NumericsCase {
  const char* shape;
  float low, high;  // the inputs and weights drawn uniformly from [low, high]
};

// The bound docs/templates.md states ("Numerics"), as max |error| / max |output|.
double StatedBound(int m) { return m == 2 ? 5e-6 : 5e-5; }

TEST(WinogradNumerics, FloatTransformsStayWithinTheStatedBoundOfADoublePrecisionReference) {
  const NumericsCase cases[] = {
      {"n=1,ci=64,h=14,w=14,co=16,kh=3,kw=3,stride=1,pad=1", -1.0f, 1.0f},  // typical
      {"n=1,ci=512,h=7,w=7,co=16,kh=3,kw=3,stride=1,pad=1", -1.0f, 1.0f},   // many channels
      {"n=1,ci=512,h=7,w=7,co=16,kh=3,kw=3,stride=1,pad=1", 0.0f, 1.0f},    // no cancellation
      {"n=1,ci=64,h=14,w=14,co=16,kh=3,kw=3,stride=1,pad=1", -1e4f, 1e4f},  // large magnitudes
  };
  for (const int m : {2, 4})
    for (const NumericsCase& c : cases) {
      const ConvShape s = Shape(c.shape);
      const std::vector<float> in = Uniform(s.input_elements(), 11, c.low, c.high);
      const std::vector<float> wt = Uniform(static_cast<size_t>(s.co * s.ci * 9), 12, c.low, c.high);
      const double error = RelativeError(WinogradConvolution(s, m, in.data(), wt.data()), DirectDouble(s, in, wt));
      EXPECT_LE(error, StatedBound(m)) << "F(" << m << "x" << m << ",3x3) " << c.shape << " [" << c.low << ", "
                                       << c.high << "]";
    }
}

}  // namespace
}  // namespace tt
