// conv2d_implicit_gemm: convolution as the GEMM out = W x im2col(data) with the im2col
// indexing inside the kernel (kernels/conv2d_implicit_gemm.cl). M = co, N = n * oh * ow
// (output pixels), K = ci * kh * kw. The knobs are gemm_tiled's (tile_x, tile_y split in 4,
// tile_k in 3, vec, auto_unroll_max_step, local staging) with two differences a CPU asks for:
// vec runs along M (output channels) and the weight tile is always staged, transposed, in
// local memory, so the only knob left there is local_b. M and N are split after rounding up
// (to 16 channels, 8 pixels), so pruned channel counts and 7x7 or 14x14 images keep every
// tile size; the kernel stores only what lies inside. K = ci * kh * kw always has the kernel
// window's factors, so tile_k splits it exactly.
#include <algorithm>
#include <string>

#include "ops/build_options.h"
#include "ops/conv2d_template_base.h"
#include "ops/conv2d_templates.h"
#include "ops/gemm_tile_knobs.h"

namespace tt {
namespace {

// The register budget of conv2d_oc_vec: 28 accumulator vectors leave room in a file of 32
// for the weight vectors and the broadcast input.
constexpr int64_t kMaxAccumulatorVectors = 28;
constexpr int64_t kMinAccumulatorVectors = 8;
constexpr int64_t kMaxInnerBody = 1024;     // vector FMAs and input loads in the always-unrolled inner step
constexpr int64_t kMaxUnrolledBody = 4096;  // ... in the middle step when it is unrolled
constexpr int64_t kChannelQuantum = 16;     // M is split rounded up to this
constexpr int64_t kPixelQuantum = 8;        // N is split rounded up to this (see PixelExtent)

constexpr int64_t kMaxRowRun = 28;  // widest output row a work-item's pixels can span

int64_t RoundUp(int64_t value, int64_t quantum) { return (value + quantum - 1) / quantum * quantum; }

// The pixel extent tile_y splits: rounded up to a multiple of 8, unless that loses the output
// width as a factor while a work-item could hold whole rows (the kernel's cheap edge path needs
// runs of whole rows); n * oh * ow itself always has it.
int64_t PixelExtent(int64_t pixels, int64_t ow) {
  const int64_t rounded = RoundUp(pixels, kPixelQuantum);
  return ow <= kMaxRowRun && rounded % ow != 0 ? pixels : rounded;
}

// The GEMM view of a convolution.
struct ImplicitGemmShape {
  int64_t m, n, k;       // extents
  int64_t m_pad, n_pad;  // the extents tile_x and tile_y split

  explicit ImplicitGemmShape(const ConvShape& s)
      : m(s.co),
        n(s.n * s.oh * s.ow),
        k(s.ci * s.kh * s.kw),
        m_pad(RoundUp(m, kChannelQuantum)),
        n_pad(PixelExtent(n, s.ow)) {}
};

struct ImplicitGemmTiles {
  KnobValue x, y, k;  // tile_x (M), tile_y (N), tile_k (K)
  int64_t vec, unroll_max_step, local_b;

  ImplicitGemmTiles(const ConfigSpace& space, const Config& c)
      : x(space.Value(c, "tile_x")),
        y(space.Value(c, "tile_y")),
        k(space.Value(c, "tile_k")),
        vec(space.Scalar(c, "vec")),
        unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        local_b(space.Scalar(c, "local_b")) {}

  int64_t work_group_size() const { return x[2] * y[2]; }
  int64_t tile_m() const { return x[1] * x[2] * x[3]; }
  int64_t tile_n() const { return y[1] * y[2] * y[3]; }
  int64_t tile_k() const { return k[1] * k[2]; }
  int64_t accumulator_vectors() const { return x[1] * x[3] / vec * y[1] * y[3]; }
  int64_t local_bytes() const { return 4 * tile_k() * (tile_m() + local_b * tile_n()); }
  bool unroll_middle() const { return tile_k() <= unroll_max_step; }
};

// Rules that keep configs compilable in reasonable time and worth measuring on a CPU; checked
// like device limits before anything is compiled.
std::optional<std::string> CheckImplicitGemm(const ImplicitGemmShape& g, const ImplicitGemmTiles& t,
                                             const DeviceLimits& limits) {
  if (t.x[3] % t.vec != 0) return "vec " + std::to_string(t.vec) + " does not divide tile_x[3]";
  if (t.accumulator_vectors() > kMaxAccumulatorVectors)
    return "more than " + std::to_string(kMaxAccumulatorVectors) + " accumulator vectors per work-item";
  // A work-group tile wholly in the rounding computes nothing that is stored.
  if (g.m_pad - g.m >= t.tile_m()) return "a work-group tile of tile_x lies wholly past the output channels";
  if (g.n_pad - g.n >= t.tile_n()) return "a work-group tile of tile_y lies wholly past the output pixels";
  // Each FMA needs a weight vector and a broadcast input; fewer than 8 accumulators leave the
  // loads, not the FMAs, as the bound.
  if (t.accumulator_vectors() < std::min(kMinAccumulatorVectors, g.m_pad / t.vec * g.n_pad))
    return "fewer than " + std::to_string(kMinAccumulatorVectors) + " accumulator vectors per work-item";
  // The staged weights (one copy per float) are shared by the group's pixels: at least 2 * vec
  // of them keep the copies under half a copy per FMA.
  if (t.tile_n() < std::min(2 * t.vec, g.n_pad)) return "tile_y's work-group tile has fewer than 2 x vec pixels";
  // The unrolled code also loads each pixel's input per step.
  const int64_t per_step = t.accumulator_vectors() + t.y[1] * t.y[3];
  if (t.k[2] * per_step > kMaxInnerBody) return "inner unrolled step too large";
  if (t.unroll_middle() && t.tile_k() * per_step > kMaxUnrolledBody) return "unrolled middle step too large";
  return CheckDeviceLimits(t.work_group_size(), t.local_bytes(), limits);
}

class Conv2dImplicitGemm final : public Conv2dTemplate {
 public:
  std::string_view name() const override { return "conv2d_implicit_gemm"; }
  std::string_view description() const override {
    return "implicit GEMM (weights x im2col indexed in the kernel), gemm_tiled knobs, vec along output channels";
  }
  std::string_view kernel_name() const override { return "conv2d_implicit_gemm"; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"vector_types.cl", "conv_common.cl", "conv2d_implicit_gemm.cl"});
    return text;
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const ImplicitGemmShape g(ConvShape::Of(w));
    ConfigSpace space;
    AddGemmTileKnobs(space, g.m_pad, g.n_pad, g.k, GemmTails::kExactOnly);
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 4)));
    space.AddKnob(Knob::Categorical("local_b", {0, 1}));
    space.AddConstraint([g, limits](const ConfigSpace& sp, const Config& c) {
      return CheckImplicitGemm(g, ImplicitGemmTiles(sp, c), limits);
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const ImplicitGemmTiles t(space, c);
    return ShapeOptions(ConvShape::Of(w)) + DefineSplit("TX", t.x) + DefineSplit("TY", t.y) + DefineSplit("TK", t.k) +
           Define("VEC", t.vec) + Define("UNROLL_K", t.unroll_middle()) + Define("LOCAL_B", t.local_b);
  }

  LaunchGeometry Geometry(const Workload&, const ConfigSpace& space, const Config& c) const override {
    const ImplicitGemmTiles t(space, c);
    return SplitGeometry2d(t.y, t.x);
  }
};

}  // namespace

const KernelTemplate& Conv2dImplicitGemmTemplate() {
  static const Conv2dImplicitGemm instance;
  return instance;
}

}  // namespace tt
