#include "ops/gemm_template.h"

#include <Eigen/Core>
#include <string>

namespace tt {
namespace {

// Limits that keep a config compilable in reasonable time and within a register file; they
// are template rules, checked like device limits before anything is compiled.
constexpr int64_t kMaxAccumulators = 256;       // floats of C held per work-item
constexpr int64_t kMaxInnerBody = 1024;         // vector FMAs in the always-unrolled inner step
constexpr int64_t kMaxUnrolledBody = 4096;      // ... in the middle step when it is unrolled

struct GemmTiles {
  KnobValue x, y, k;  // tile_x (M), tile_y (N), tile_k (K)
  int64_t vec, unroll_max_step, local_a, local_b;

  GemmTiles(const ConfigSpace& space, const Config& c)
      : x(space.Value(c, "tile_x")), y(space.Value(c, "tile_y")), k(space.Value(c, "tile_k")),
        vec(space.Scalar(c, "vec")), unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        local_a(space.Scalar(c, "local_a")), local_b(space.Scalar(c, "local_b")) {}

  int64_t work_group_size() const { return x[2] * y[2]; }
  int64_t tile_m() const { return x[1] * x[2] * x[3]; }
  int64_t tile_n() const { return y[1] * y[2] * y[3]; }
  int64_t tile_k() const { return k[1] * k[2]; }
  int64_t accumulators() const { return x[1] * x[3] * y[1] * y[3]; }
  int64_t local_bytes() const { return 4 * tile_k() * (local_a * tile_m() + local_b * tile_n()); }
  bool unroll_middle() const { return tile_k() <= unroll_max_step; }
};

std::optional<std::string> CheckDeviceLimits(const GemmTiles& t, const DeviceLimits& limits) {
  if (static_cast<size_t>(t.work_group_size()) > limits.max_work_group_size)
    return "work-group size " + std::to_string(t.work_group_size()) + " exceeds the device limit " +
           std::to_string(limits.max_work_group_size);
  if (static_cast<size_t>(t.local_bytes()) > limits.local_mem_bytes)
    return "local memory " + std::to_string(t.local_bytes()) + " B exceeds the device limit " +
           std::to_string(limits.local_mem_bytes) + " B";
  return std::nullopt;
}

std::optional<std::string> CheckTemplateRules(const GemmTiles& t) {
  if (t.y[3] % t.vec != 0) return "vec " + std::to_string(t.vec) + " does not divide tile_y[3]";
  if (t.accumulators() > kMaxAccumulators) return "more than 256 accumulators per work-item";
  const int64_t vectors = t.accumulators() / t.vec;
  if (t.k[2] * vectors > kMaxInnerBody) return "inner unrolled step too large";
  if (t.unroll_middle() && t.tile_k() * vectors > kMaxUnrolledBody) return "unrolled middle step too large";
  return std::nullopt;
}

class GemmTiled final : public KernelTemplate {
 public:
  std::string_view name() const override { return "gemm_tiled"; }
  std::string_view op() const override { return "gemm"; }
  std::string_view kernel_name() const override { return "gemm"; }
  std::string_view source() const override { return KernelSource("gemm.cl"); }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    ConfigSpace space;
    space.AddKnob(Knob::Split("tile_x", w.Dim("m"), 4));
    space.AddKnob(Knob::Split("tile_y", w.Dim("n"), 4));
    space.AddKnob(Knob::Split("tile_k", w.Dim("k"), 3));
    space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 16, 64, 512}));
    space.AddKnob(Knob::Discrete("vec", {1, 2, 4, 8}));
    space.AddKnob(Knob::Categorical("local_a", {0, 1}));
    space.AddKnob(Knob::Categorical("local_b", {0, 1}));
    space.AddConstraint([limits](const ConfigSpace& s, const Config& c) {
      return CheckDeviceLimits(GemmTiles(s, c), limits);
    });
    space.AddConstraint([](const ConfigSpace& s, const Config& c) { return CheckTemplateRules(GemmTiles(s, c)); });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const GemmTiles t(space, c);
    std::string options = "-cl-mad-enable -D M=" + std::to_string(w.Dim("m")) + " -D N=" + std::to_string(w.Dim("n")) +
                          " -D K=" + std::to_string(w.Dim("k"));
    for (int i = 0; i < 4; ++i) options += " -D TX" + std::to_string(i) + "=" + std::to_string(t.x[i]);
    for (int i = 0; i < 4; ++i) options += " -D TY" + std::to_string(i) + "=" + std::to_string(t.y[i]);
    for (int i = 0; i < 3; ++i) options += " -D TK" + std::to_string(i) + "=" + std::to_string(t.k[i]);
    options += " -D VEC=" + std::to_string(t.vec) + " -D UNROLL_K=" + std::to_string(t.unroll_middle()) +
               " -D LOCAL_A=" + std::to_string(t.local_a) + " -D LOCAL_B=" + std::to_string(t.local_b);
    return options;
  }

  LaunchGeometry Geometry(const Workload&, const ConfigSpace& space, const Config& c) const override {
    const GemmTiles t(space, c);
    LaunchGeometry g;
    g.dims = 2;
    g.local = {static_cast<size_t>(t.y[2]), static_cast<size_t>(t.x[2]), 1};
    g.global = {static_cast<size_t>(t.y[0] * t.y[2]), static_cast<size_t>(t.x[0] * t.x[2]), 1};
    return g;
  }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const auto m = static_cast<size_t>(w.Dim("m")), n = static_cast<size_t>(w.Dim("n")),
               k = static_cast<size_t>(w.Dim("k"));
    return {{"A", m * k, false}, {"B", k * n, false}, {"C", m * n, true}};
  }

  double Flops(const Workload& w) const override {
    return 2.0 * static_cast<double>(w.Dim("m")) * static_cast<double>(w.Dim("n")) * static_cast<double>(w.Dim("k"));
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto m = w.Dim("m"), n = w.Dim("n"), k = w.Dim("k");
    Eigen::Map<const RowMajor> a(in[0], m, k), b(in[1], k, n);
    Eigen::Map<RowMajor> c(out, m, n);
    c.noalias() = a * b;
  }
};

}  // namespace

const KernelTemplate& GemmTiledTemplate() {
  static const GemmTiled instance;
  return instance;
}

}  // namespace tt
