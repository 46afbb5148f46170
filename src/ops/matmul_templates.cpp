#include "ops/matmul_templates.h"

#include <Eigen/Core>
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/build_options.h"
#include "ops/channel_blocking.h"
#include "ops/gemm_tile_knobs.h"

namespace tt {
namespace {

// Limits that keep a config compilable in reasonable time and within a register file; they
// are template rules, checked like device limits before anything is compiled.
constexpr int64_t kMaxAccumulators = 256;   // floats of the output held per work-item
constexpr int64_t kMaxInnerBody = 1024;     // vector FMAs in the always-unrolled inner step
constexpr int64_t kMaxUnrolledBody = 4096;  // ... in the middle step when it is unrolled

// The sizes of a gemm (m, n, k) or batch_matmul (b, m, n, k, transpose_a, transpose_b) workload.
struct MatmulShape {
  int64_t b, m, n, k;
  bool transpose_a, transpose_b;

  explicit MatmulShape(const Workload& w)
      : b(w.op == "batch_matmul" ? w.Dim("b") : 1),
        m(w.Dim("m")),
        n(w.Dim("n")),
        k(w.Dim("k")),
        transpose_a(w.op == "batch_matmul" && w.Dim("transpose_a") != 0),
        transpose_b(w.op == "batch_matmul" && w.Dim("transpose_b") != 0) {}
};

struct MatmulTiles {
  KnobValue b, x, y, k;  // tile_b (B; 1x1 for GEMM), tile_x (M), tile_y (N), tile_k (K)
  int64_t vec, unroll_max_step, local_a, local_b, pack_b;

  MatmulTiles(const ConfigSpace& space, const Config& c)
      : b(space.HasKnob("tile_b") ? space.Value(c, "tile_b") : KnobValue{1, 1}),
        x(space.Value(c, "tile_x")),
        y(space.Value(c, "tile_y")),
        k(space.Value(c, "tile_k")),
        vec(space.Scalar(c, "vec")),
        unroll_max_step(space.Scalar(c, "auto_unroll_max_step")),
        local_a(space.Scalar(c, "local_a")),
        local_b(space.Scalar(c, "local_b")),
        pack_b(space.Scalar(c, "pack_b")) {}

  int64_t work_group_size() const { return b[1] * x[2] * y[2]; }
  int64_t tile_m() const { return x[1] * x[2] * x[3]; }
  int64_t tile_n() const { return y[1] * y[2] * y[3]; }
  int64_t tile_k() const { return k[1] * k[2]; }
  int64_t accumulators() const { return x[1] * x[3] * y[1] * y[3]; }
  // Each batch entry of a work-group stages its own tiles.
  int64_t local_bytes() const { return 4 * b[1] * tile_k() * (local_a * tile_m() + local_b * tile_n()); }
  bool unroll_middle() const { return tile_k() <= unroll_max_step; }
};

std::optional<std::string> CheckTemplateRules(const MatmulTiles& t) {
  if (t.y[3] % t.vec != 0) return "vec " + std::to_string(t.vec) + " does not divide tile_y[3]";
  if (t.accumulators() > kMaxAccumulators) return "more than 256 accumulators per work-item";
  const int64_t vectors = t.accumulators() / t.vec;
  if (t.k[2] * vectors > kMaxInnerBody) return "inner unrolled step too large";
  if (t.unroll_middle() && t.tile_k() * vectors > kMaxUnrolledBody) return "unrolled middle step too large";
  if (t.pack_b && t.local_b) return "pack_b and local_b both stage B";
  return std::nullopt;
}

int64_t LargestDivisorUpTo(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

int64_t Product(const KnobValue& split) {
  int64_t p = 1;
  for (const int64_t f : split) p *= f;
  return p;
}

// -D TAIL_M / TAIL_N / TAIL_K only where a split covers its extent with a partial last tile,
// so that the kernels of exact splits are compiled from the same source as without tails.
std::string TailOptions(const MatmulShape& s, const MatmulTiles& t) {
  std::string options;
  if (Product(t.x) != s.m) options += Define("TAIL_M", 1);
  if (Product(t.y) != s.n) options += Define("TAIL_N", 1);
  if (Product(t.k) != s.k) options += Define("TAIL_K", 1);
  return options;
}

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// A row-major matrix stored transposed is the column-major view of the untransposed one.
template <class Lhs>
void MultiplyInto(const Lhs& a, const float* y, bool transpose_b, int64_t k, int64_t n, float* z) {
  Eigen::Map<RowMajor> c(z, a.rows(), n);
  if (transpose_b)
    c.noalias() = a * Eigen::Map<const ColMajor>(y, k, n);
  else
    c.noalias() = a * Eigen::Map<const RowMajor>(y, k, n);
}

// What every matmul template shares: the operator, its buffers, FLOPs and reference.
class MatmulOperator : public KernelTemplate {
 public:
  explicit MatmulOperator(bool batched) : batched_(batched) {}
  std::string_view op() const override { return batched_ ? "batch_matmul" : "gemm"; }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const MatmulShape s(w);
    return {{batched_ ? "X" : "A", ElementCount({s.b, s.m, s.k}), false},
            {batched_ ? "Y" : "B", ElementCount({s.b, s.k, s.n}), false},
            {batched_ ? "Z" : "C", ElementCount({s.b, s.m, s.n}), true}};
  }

  double Flops(const Workload& w) const override {
    const MatmulShape s(w);
    return 2.0 * static_cast<double>(s.b) * static_cast<double>(s.m) * static_cast<double>(s.n) *
           static_cast<double>(s.k);
  }

  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    const MatmulShape s(w);
    for (int64_t i = 0; i < s.b; ++i) {
      const float* x = in[0] + i * s.m * s.k;
      const float* y = in[1] + i * s.k * s.n;
      float* z = out + i * s.m * s.n;
      if (s.transpose_a)
        MultiplyInto(Eigen::Map<const ColMajor>(x, s.m, s.k), y, s.transpose_b, s.k, s.n, z);
      else
        MultiplyInto(Eigen::Map<const RowMajor>(x, s.m, s.k), y, s.transpose_b, s.k, s.n, z);
    }
  }

 protected:
  bool batched_;
};

class MatmulTiled final : public MatmulOperator {
 public:
  explicit MatmulTiled(bool batched) : MatmulOperator(batched) {}
  std::string_view name() const override { return batched_ ? "batch_matmul_tiled" : "gemm_tiled"; }
  std::string_view kernel_name() const override { return "matmul"; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"vector_types.cl", "matmul.cl"});
    return text;
  }
  std::string_view description() const override {
    return batched_ ? "GEMM tiles per batch entry, AutoTVM dense knobs plus a batch split, local staging or packed B"
                    : "register tiles, vector loads, AutoTVM dense knobs, A and B staged locally or B packed in panels";
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const MatmulShape s(w);
    ConfigSpace space;
    if (batched_) space.AddKnob(Knob::Split("tile_b", s.b, 2));
    AddGemmTileKnobs(space, s.m, s.n, s.k, GemmTails::kRoundedUp);
    space.AddKnob(Knob::Discrete("vec", FloatVectorWidths(limits, 1)));
    space.AddKnob(Knob::Categorical("local_a", {0, 1}));
    space.AddKnob(Knob::Categorical("local_b", {0, 1}));
    space.AddKnob(Knob::Categorical("pack_b", {0, 1}));
    space.AddConstraint([limits](const ConfigSpace& sp, const Config& c) {
      const MatmulTiles t(sp, c);
      return CheckDeviceLimits(t.work_group_size(), t.local_bytes(), limits);
    });
    space.AddConstraint([](const ConfigSpace& sp, const Config& c) { return CheckTemplateRules(MatmulTiles(sp, c)); });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const MatmulShape s(w);
    const MatmulTiles t(space, c);
    return "-cl-mad-enable" + Define("M", s.m) + Define("N", s.n) + Define("K", s.k) +
           Define("TRANS_A", s.transpose_a) + Define("TRANS_B", s.transpose_b) + DefineSplit("TB", t.b) +
           DefineSplit("TX", t.x) + DefineSplit("TY", t.y) + DefineSplit("TK", t.k) + Define("VEC", t.vec) +
           Define("UNROLL_K", t.unroll_middle()) + Define("LOCAL_A", t.local_a) + Define("LOCAL_B", t.local_b) +
           Define("PACK_B", t.pack_b) + TailOptions(s, t);
  }

  LaunchGeometry Geometry(const Workload&, const ConfigSpace& space, const Config& c) const override {
    const MatmulTiles t(space, c);
    LaunchGeometry g;
    g.dims = 3;
    g.local = {static_cast<size_t>(t.y[2]), static_cast<size_t>(t.x[2]), static_cast<size_t>(t.b[1])};
    g.global = {static_cast<size_t>(t.y[0] * t.y[2]), static_cast<size_t>(t.x[0] * t.x[2]),
                static_cast<size_t>(t.b[0] * t.b[1])};
    return g;
  }

  // pack_b: one panel per column of work-groups (y[0] of them, the last one padded where
  // tile_y factors N rounded up), each tile_n() columns for every k and batch entry; one
  // work-item per row of a panel, in work-groups of up to 64 rows.
  std::optional<PrePass> PrePassOf(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const MatmulTiles t(space, c);
    if (!t.pack_b) return std::nullopt;
    const MatmulShape s(w);
    PrePass pass{"pack_b", 1, ElementCount({s.b, t.y[0], s.k, t.tile_n()}), {}};
    const int64_t rows = t.y[0] * s.k;
    pass.geometry.dims = 2;
    pass.geometry.global = {static_cast<size_t>(rows), static_cast<size_t>(s.b), 1};
    pass.geometry.local = {static_cast<size_t>(LargestDivisorUpTo(rows, 64)), 1, 1};
    return pass;
  }
};

// A few rows of C (M <= kMaxRows): B streamed once, row by row (kernels/gemm_rows.cl).
constexpr int64_t kMaxRows = 8;
constexpr int64_t kMaxRowAccumulators = 32;  // vectors of C per work-item: a register file

struct RowsKnobs {
  int64_t vec, nv, unroll_k, work_group;
  RowsKnobs(const ConfigSpace& space, const Config& c)
      : vec(space.Scalar(c, "vec")),
        nv(space.Scalar(c, "nv")),
        unroll_k(space.Scalar(c, "unroll_k")),
        work_group(space.Scalar(c, "work_group")) {}
  int64_t columns() const { return vec * nv; }
  int64_t work_items(int64_t n) const { return (n + columns() - 1) / columns(); }
};

// A work-item whose columns run past N loads the vector that N cuts lane by lane
// (kernels/gemm_rows.cl), so columns that divide N need no such work-item. Work-items of fewer
// than 32 columns stream too little of each row of B (1000 columns as 125 work-items of 8:
// 3-4 ms, as 31 of 32 and one of 8: 1.1-2 ms). So GemmRows::FitToTheShape takes the most
// vectors, up to the config's, whose columns divide N and number at least 32; where none do,
// the fewest that reach 32 (on 1000 columns two vectors and eight measured alike, notebook
// 2026-11-27).
constexpr int64_t kFewestColumnsPerWorkItem = 32;

// With panels, B arrives packed once as KN16n (as a deployed model packs its weights): each
// work-item reads its columns as contiguous streams. One thread, 1 x N x 4096 (VGG-16's fc7 and
// fc8): 2.3 ms against 6.7 for row-major B at 4096 columns, 0.24 against 0.58 at 1000 (the
// best of a grid each; notebook, 2026-11-29). So on a CPU it goes before gemm_rows.
class GemmRows final : public MatmulOperator {
 public:
  explicit GemmRows(bool panels) : MatmulOperator(false), panels_(panels) {}
  std::string_view name() const override { return panels_ ? "gemm_rows_panels" : "gemm_rows"; }
  std::string_view kernel_name() const override { return "gemm_rows"; }
  // At 1-8 rows on a CPU, 8 trials each: 1.9-2.9x faster than gemm_tiled's best (notebook).
  bool specialist() const override { return true; }
  std::string_view source() const override {
    static const std::string text = JoinKernelSources({"vector_types.cl", "gemm_rows.cl"});
    return text;
  }
  std::string_view description() const override {
    return panels_ ? "at most 8 rows (a dense layer at small batch): B packed once in panels of 16 columns (KN16n), "
                     "streamed along K, vec x nv columns per work-item"
                   : "at most 8 rows (a dense layer at small batch): B streamed once along K, vec x nv columns per "
                     "work-item";
  }
  std::optional<std::string> WhyNotApplicable(const Workload& w) const override {
    if (MatmulShape(w).m > kMaxRows)
      return std::string(name()) + " computes at most " + std::to_string(kMaxRows) +
             " rows (M = " + std::to_string(w.Dim("m")) + ")";
    return std::nullopt;
  }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    auto buffers = MatmulOperator::Buffers(w);
    const MatmulShape s(w);
    if (panels_) buffers[1].elements = static_cast<size_t>(ColumnPanelElements(s.k, s.n));
    return buffers;
  }
  std::vector<size_t> ChannelBlockedBuffers(const Workload&) const override {
    return panels_ ? std::vector<size_t>{1} : std::vector<size_t>{};
  }
  void DeriveInput(const Workload& w, size_t index, std::vector<float>& data) const override {
    if (!panels_ || index != 1) return;
    const MatmulShape s(w);
    data = PackColumnPanels(data.data(), s.k, s.n);  // the first k*n as row-major
  }
  void Reference(const Workload& w, const std::vector<const float*>& in, float* out) const override {
    if (!panels_) return MatmulOperator::Reference(w, in, out);
    const MatmulShape s(w);
    const std::vector<float> b = UnpackColumnPanels(in[1], s.k, s.n);
    MatmulOperator::Reference(w, {in[0], b.data()}, out);
  }

  ConfigSpace Space(const Workload& w, const DeviceLimits& limits) const override {
    const MatmulShape s(w);
    std::vector<int64_t> unrolls;
    for (int64_t u : {1, 2, 4, 8, 16})
      if (s.k % u == 0) unrolls.push_back(u);
    ConfigSpace space;
    std::vector<int64_t> widths = FloatVectorWidths(limits, 4);
    if (panels_)  // a vector of columns lies within one panel
      widths.erase(std::remove_if(widths.begin(), widths.end(), [](int64_t v) { return kChannelBlock % v != 0; }),
                   widths.end());
    space.AddKnob(Knob::Discrete("vec", widths));
    space.AddKnob(Knob::Discrete("nv", {1, 2, 4, 8}));
    space.AddKnob(Knob::Discrete("unroll_k", unrolls));
    space.AddKnob(Knob::Discrete("work_group", {1, 2, 4, 8, 16, 32, 64}));
    const int64_t n = s.n, m = s.m;
    space.AddConstraint([limits, n](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
      const RowsKnobs t(sp, c);
      if (t.work_group > t.work_items(n)) return "more work-items in a group than columns to compute";
      return CheckDeviceLimits(t.work_group, 0, limits);
    });
    space.AddConstraint([m](const ConfigSpace& sp, const Config& c) -> std::optional<std::string> {
      if (m * RowsKnobs(sp, c).nv > kMaxRowAccumulators) return "more than 32 vectors of C per work-item";
      return std::nullopt;
    });
    return space;
  }

  std::string BuildOptions(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const MatmulShape s(w);
    const RowsKnobs t(space, c);
    return "-cl-mad-enable" + Define("M", s.m) + Define("N", s.n) + Define("K", s.k) + Define("VEC", t.vec) +
           Define("NV", t.nv) + Define("UNROLL", t.unroll_k) + (panels_ ? Define("PANELS", 1) : "");
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace& space, const Config& c) const override {
    const RowsKnobs t(space, c);
    const int64_t groups = (t.work_items(MatmulShape(w).n) + t.work_group - 1) / t.work_group;
    LaunchGeometry g;
    g.local = {static_cast<size_t>(t.work_group), 1, 1};
    g.global = {static_cast<size_t>(groups * t.work_group), 1, 1};
    return g;
  }

  std::string FitToTheShape(const Workload& w, const ConfigSpace& space, const DeviceInfo&, Config& c) const override {
    const int64_t n = MatmulShape(w).n, preferred = RowsKnobs(space, c).nv;
    const size_t knob = space.KnobIndex("nv");
    std::optional<std::pair<int64_t, size_t>> dividing, enough;  // (nv, value index)
    for (size_t i = 0; i < space.knob(knob).size(); ++i) {
      Config fitted = c;
      fitted[knob] = static_cast<uint32_t>(i);
      const RowsKnobs t(space, fitted);
      if (t.nv > preferred || t.columns() < kFewestColumnsPerWorkItem || !space.IsValid(fitted)) continue;
      if (n % t.columns() == 0 && (!dividing || t.nv > dividing->first)) dividing = {t.nv, i};
      if (!enough || t.nv < enough->first) enough = {t.nv, i};
    }
    const auto fit = dividing ? dividing : enough;
    if (!fit || fit->second == c[knob]) return {};
    c[knob] = static_cast<uint32_t>(fit->second);
    return "columns per work-item fitted to N";
  }

 private:
  bool panels_;
};

}  // namespace

const KernelTemplate& GemmRowsTemplate() {
  static const GemmRows instance(false);
  return instance;
}

const KernelTemplate& GemmRowsPanelsTemplate() {
  static const GemmRows instance(true);
  return instance;
}

const KernelTemplate& GemmTiledTemplate() {
  static const MatmulTiled instance(false);
  return instance;
}

const KernelTemplate& BatchMatmulTiledTemplate() {
  static const MatmulTiled instance(true);
  return instance;
}

}  // namespace tt
