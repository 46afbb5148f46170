// depthwise_conv2d_nchwc: depthwise convolution vectorized over channels on channel-blocked
// activations and weights (kernels/depthwise_conv2d_nchwc.cl). Like oneDNN's nChw16c and TVM's
// depthwise_conv2d_NCHWc, the layout is what makes channel vectors contiguous; the conversion
// of the activations from and to NCHW is not part of the timed kernel (bench/pack_weights.cpp
// times it, as --depthwise).
#include "ops/build_options.h"
#include "ops/channel_blocking.h"
#include "ops/depthwise_conv2d_template.h"
#include "ops/pixel_blocks.h"

namespace tt {
namespace {

// Accumulator vectors per work-item (a register file of 32, with the weights and inputs).
constexpr int64_t kMaxAccumulatorVectors = 24;

class DepthwiseConv2dNchwc final : public KernelTemplate {
 public:
  std::string_view name() const override { return "depthwise_conv2d_nchwc"; }
  std::string_view op() const override { return "depthwise_conv2d"; }
  std::string_view description() const override {
    return "channel vectors (vec) times tile_oh x tile_ow pixels on NCHW16c activations and C16 weights";
  }
  std::string_view kernel_name() const override { return "depthwise_conv2d_nchwc"; }
  bool vectorizes_channels() const override { return true; }
  std::string_view source() const override {
    static const std::string text =
        JoinKernelSources({"vector_types.cl", "pixel_blocks.cl", "depthwise_conv2d_nchwc.cl"});
    return text;
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ConvShape s = ConvShape::Of(w);
    ConfigSpace space;
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 4)));
    AddPixelBlockKnobs(space, s);
    space.AddConstraint([s, limits](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
      const PixelBlock p(sp, c);
      if (p.oh * p.ow > kMaxAccumulatorVectors)
        return "more than " + std::to_string(kMaxAccumulatorVectors) + " accumulator vectors per work-item";
      return p.WhyInvalid(s, limits);
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    return "-cl-mad-enable" + Define("C", s.co) + Define("H", s.h) + Define("W", s.w) + Define("KH", s.kh) +
           Define("KW", s.kw) + Define("STRIDE", s.stride) + Define("PAD", s.pad) + Define("DIL", s.dilation) +
           Define("OH", s.oh) + Define("OW", s.ow) + Define("VEC", space.Scalar(c, "vec")) +
           PixelBlock(space, c).BuildOptions();
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ConvShape s = ConvShape::Of(w);
    return PixelBlock(space, c).Geometry(s, s.n * ChannelBlocks(s.co) * kChannelBlock / space.Scalar(c, "vec"));
  }

  // Blocked input, weights and output; the padding channels of the last block are real lanes.
  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    return {{"data", static_cast<size_t>(BlockedElements(s.n, s.co, s.h * s.w)), false},
            {"weight", static_cast<size_t>(BlockedElements(1, s.co, s.kh * s.kw)), false},
            {"out", static_cast<size_t>(BlockedElements(s.n, s.co, s.oh * s.ow)), true}};
  }

  std::vector<size_t> ChannelBlockedBuffers(const Workload&) const override {
    return {0, 1, 2};
  }  // NCHW16c, OIHW16o (I = 1)

  // The direct algorithm's FLOPs on the real channels, as for the other depthwise sketches.
  double Flops(const Workload& w) const override {
    const ConvShape s = ConvShape::Of(w);
    return 2.0 * static_cast<double>(s.output_elements()) * static_cast<double>(s.kh * s.kw);
  }

  // Every lane of every block, padding lanes included, in the blocked layout.
  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const ConvShape s = ConvShape::Of(w);
    const int64_t blocks = s.n * ChannelBlocks(s.co), lanes = kChannelBlock;
    for (int64_t b = 0; b < blocks; ++b) {
      const float* image = in[0] + b * s.h * s.w * lanes;
      const float* kernel = in[1] + b % ChannelBlocks(s.co) * s.kh * s.kw * lanes;
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x)
          for (int64_t l = 0; l < lanes; ++l) {
            float sum = 0.0f;
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                const int64_t iy = y * s.stride - s.pad + ky * s.dilation, ix = x * s.stride - s.pad + kx * s.dilation;
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                  sum += image[(iy * s.w + ix) * lanes + l] * kernel[(ky * s.kw + kx) * lanes + l];
              }
            out[((b * s.oh + y) * s.ow + x) * lanes + l] = sum;
          }
    }
  }
};

}  // namespace

const KernelTemplate& DepthwiseConv2dNchwcTemplate() {
  static const DepthwiseConv2dNchwc instance;
  return instance;
}

}  // namespace tt
