#include "ops/launch_plan.h"

#include <stdexcept>

#include "ops/channel_blocking.h"
#include "ops/conv_shape.h"
#include "ops/winograd.h"

namespace tt {
namespace {

// The plain layouts of an operator's buffers, in Buffers() order (inputs, then the output).
std::vector<BufferLayout> PlainLayouts(const Workload& w, size_t count) {
  using L = TensorLayout;
  if (w.op == "gemm") {
    const int64_t m = w.Dim("m"), n = w.Dim("n"), k = w.Dim("k");
    return {{L::kRowMajor, {m, k}}, {L::kRowMajor, {k, n}}, {L::kRowMajor, {m, n}}};
  }
  if (w.op == "batch_matmul") {
    const int64_t b = w.Dim("b"), m = w.Dim("m"), n = w.Dim("n"), k = w.Dim("k");
    const bool ta = w.Dim("transpose_a") != 0, tb = w.Dim("transpose_b") != 0;
    return {{L::kRowMajor, ta ? std::vector<int64_t>{b, k, m} : std::vector<int64_t>{b, m, k}},
            {L::kRowMajor, tb ? std::vector<int64_t>{b, n, k} : std::vector<int64_t>{b, k, n}},
            {L::kRowMajor, {b, m, n}}};
  }
  if (w.op == "conv2d" || w.op == "depthwise_conv2d") {
    const ConvShape s = ConvShape::Of(w);
    const int64_t weight_ci = w.op == "conv2d" ? s.ci : 1;
    return {{L::kNCHW, {s.n, s.ci, s.h, s.w}},
            {L::kOIHW, {s.co, weight_ci, s.kh, s.kw}},
            {L::kNCHW, {s.n, s.co, s.oh, s.ow}}};
  }
  return std::vector<BufferLayout>(count, BufferLayout{});  // flat buffers (selftest)
}

TensorLayout Blocked(TensorLayout plain) {
  if (plain == TensorLayout::kNCHW) return TensorLayout::kNCHW16c;
  if (plain == TensorLayout::kOIHW) return TensorLayout::kOIHW16o;
  if (plain == TensorLayout::kRowMajor) return TensorLayout::kKN16n;  // columns in blocks
  throw std::logic_error("only NCHW, OIHW and row-major buffers have a blocked layout");
}

}  // namespace

std::string_view LayoutName(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::kRowMajor:
      return "row-major";
    case TensorLayout::kNCHW:
      return "NCHW";
    case TensorLayout::kNCHW16c:
      return "NCHW16c";
    case TensorLayout::kOIHW:
      return "OIHW";
    case TensorLayout::kOIHW16o:
      return "OIHW16o";
    case TensorLayout::kWinogradF2:
      return "WinogradF2x2";
    case TensorLayout::kWinogradF4:
      return "WinogradF4x4";
    case TensorLayout::kKN16n:
      return "KN16n";
  }
  return "?";
}

bool ParseLayoutName(std::string_view name, TensorLayout& out) {
  for (const TensorLayout l :
       {TensorLayout::kRowMajor, TensorLayout::kNCHW, TensorLayout::kNCHW16c, TensorLayout::kOIHW,
        TensorLayout::kOIHW16o, TensorLayout::kWinogradF2, TensorLayout::kWinogradF4, TensorLayout::kKN16n})
    if (LayoutName(l) == name) {
      out = l;
      return true;
    }
  return false;
}

TensorLayout PlainLayout(TensorLayout layout) {
  if (layout == TensorLayout::kNCHW16c) return TensorLayout::kNCHW;
  if (layout == TensorLayout::kOIHW16o || layout == TensorLayout::kWinogradF2 || layout == TensorLayout::kWinogradF4)
    return TensorLayout::kOIHW;
  if (layout == TensorLayout::kKN16n) return TensorLayout::kRowMajor;
  return layout;
}

int WinogradTileOf(TensorLayout layout) {
  if (layout == TensorLayout::kWinogradF2) return 2;
  if (layout == TensorLayout::kWinogradF4) return 4;
  return 0;
}

ConvShape WeightShape(const std::vector<int64_t>& oihw) {
  if (oihw.size() != 4) throw std::invalid_argument("convolution weights have four dimensions");
  ConvShape s;
  s.co = oihw[0];
  s.ci = oihw[1];
  s.kh = oihw[2];
  s.kw = oihw[3];
  return s;
}

size_t LayoutElements(TensorLayout layout, const std::vector<int64_t>& dims) {
  if (const int m = WinogradTileOf(layout)) {
    const ConvShape s = WeightShape(dims);
    if (s.kh != 3 || s.kw != 3) throw std::invalid_argument("Winograd weights are 3x3");
    return static_cast<size_t>(WinogradWeightElements(s, m));
  }
  if (layout == TensorLayout::kNCHW16c || layout == TensorLayout::kOIHW16o) {
    if (dims.size() != 4) throw std::invalid_argument("a channel-blocked layout has four dimensions");
    // NCHW16c blocks dimension 1 (C) of N; OIHW16o blocks dimension 0 (O) of a single "batch".
    return layout == TensorLayout::kNCHW16c
               ? static_cast<size_t>(BlockedElements(dims[0], dims[1], dims[2] * dims[3]))
               : static_cast<size_t>(BlockedElements(1, dims[0], dims[1] * dims[2] * dims[3]));
  }
  if (layout == TensorLayout::kKN16n) {
    if (dims.size() != 2) throw std::invalid_argument("KN16n holds a matrix: two dimensions");
    return static_cast<size_t>(ColumnPanelElements(dims[0], dims[1]));
  }
  size_t elements = 1;
  for (const int64_t d : dims) elements *= static_cast<size_t>(d);
  return elements;
}

std::vector<BufferLayout> BufferLayouts(const KernelTemplate& kernel, const Workload& workload) {
  const std::vector<BufferSpec> specs = kernel.Buffers(workload);
  std::vector<BufferLayout> layouts = PlainLayouts(workload, specs.size());
  if (layouts.size() != specs.size()) throw std::logic_error("buffer count differs from the operator's");
  for (const size_t i : kernel.ChannelBlockedBuffers(workload)) layouts.at(i).layout = Blocked(layouts[i].layout);
  if (kernel.winograd_tile() != 0)  // the weights, transformed
    layouts.at(1).layout = kernel.winograd_tile() == 2 ? TensorLayout::kWinogradF2 : TensorLayout::kWinogradF4;
  for (size_t i = 0; i < specs.size(); ++i)
    if (layouts[i].dims.empty()) layouts[i].dims = {static_cast<int64_t>(specs[i].elements)};
  return layouts;
}

LaunchPlan PlanLaunch(const KernelTemplate& kernel, const Workload& workload, const ConfigSpace& space,
                      const Config& config) {
  LaunchPlan plan;
  plan.build_options = kernel.BuildOptions(workload, space, config);
  const std::vector<BufferSpec> buffers = kernel.Buffers(workload);
  KernelStep main{std::string(kernel.kernel_name()), kernel.Geometry(workload, space, config), {}};
  for (size_t i = 0; i < buffers.size(); ++i) main.args.push_back(static_cast<int>(i));
  if (const auto pre = kernel.PrePassOf(workload, space, config)) {
    if (pre->input >= buffers.size() || buffers[pre->input].is_output)
      throw std::logic_error("the pre-pass of " + std::string(kernel.name()) + " does not read an input buffer");
    plan.scratch_elements = pre->scratch_elements;
    plan.steps.push_back({pre->kernel_name, pre->geometry, {static_cast<int>(pre->input), kScratchArg}});
    main.args[pre->input] = kScratchArg;
  }
  plan.steps.push_back(std::move(main));
  return plan;
}

}  // namespace tt
