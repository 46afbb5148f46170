#include "ops/starting_config.h"

#include <algorithm>
#include <map>

#include "core/rng.h"
#include "core/workload.h"
#include "space/config_adapt.h"

namespace tt {
namespace {

// Stands for the device's float vector width in a table below.
constexpr int64_t kNativeWidth = -1;

using Preferred = std::vector<std::pair<std::string, KnobValue>>;

// One set of tiles serves the sketches that share a kernel (the plain and channel-blocked
// channel-vector convolutions; GEMM and batched GEMM; the direct convolutions with and without
// local memory).
// Four vectors of output channels per work-item, so that each input value loaded feeds four
// FMAs, times 2x2 pixels: on a CPU this beat two vectors times 2x4 pixels on 1x1, 3x3 stride-1
// and stride-2 layers alike (1.05-1.9x; the stem's 7x7 equal). Fewer channels than four
// vectors: the most vectors that fit (see DeviceStartingConfig).
// The blocked sketch's input framed by its pre-pass (pad_input): no bounds checks in the kernel,
// 1.2-1.5x on 7x7 to 28x28 images, equal on 56x56.
const Preferred kCpuChannelVector{{"vec", {kNativeWidth}}, {"tile_oc", {4}},   {"tile_oh", {2}},  {"tile_ow", {2}},
                                  {"work_group", {4}},     {"unroll_kw", {1}}, {"pad_input", {1}}};
// Winograd F(2x2) on channel blocks: two vectors of output channels and six tiles per work-item,
// the input channels unrolled by four (what 400-trial runs chose on most of ResNet-18's 3x3
// layers), the input transformed by the pre-pass (but see the template's FitToTheShape).
const Preferred kCpuWinogradTiles{{"vec", {kNativeWidth}}, {"tile_oc", {2}},   {"tiles", {6}},
                                  {"work_group", {4}},     {"unroll_ci", {4}}, {"fused_ci", {0}}};
// F(4x4): four tiles in groups of one, what 400-trial runs chose on ResNet-18's 56x56 and 28x28
// layers; as fast as six in groups of four at one thread, 1.3-1.7x faster at two, with the input
// transformed in the kernel (0.37 against 0.49-0.63 ms on 56x56; notebook, 2026-11-28, morning).
const Preferred kCpuWinogradF4Tiles{{"vec", {kNativeWidth}}, {"tile_oc", {2}},   {"tiles", {4}},
                                    {"work_group", {1}},     {"unroll_ci", {4}}, {"fused_ci", {0}}};
const Preferred kCpuGemmTiles{{"tile_x", {8, 8, 16, 1}},
                              {"tile_y", {32, 4, 1, 8}},
                              {"tile_k", {2, 256, 2}},
                              {"auto_unroll_max_step", {64}},
                              {"vec", {8}}};
const Preferred kGpuGemmTiles{
    {"tile_x", {1, 1, 16, 4}}, {"tile_y", {1, 1, 16, 4}}, {"tile_k", {1, 8, 1}}, {"auto_unroll_max_step", {512}}};
const Preferred kGpuDirectTiles{
    {"tile_f", {1, 1, 8, 2}}, {"tile_y", {1, 1, 2, 1}}, {"tile_x", {1, 1, 8, 2}},        {"tile_rc", {1, 8}},
    {"tile_ry", {1, 1}},      {"tile_rx", {1, 3}},      {"auto_unroll_max_step", {512}}, {"unroll_explicit", {1}}};

// Tiles that measured well on typical shapes (ResNet-18's and MobileNet's layers, 1024^3 GEMMs)
// on a CPU device: register tiles of a few vectors per work-item, one or a few pixels rows,
// no staging in local memory (which is ordinary memory on a CPU). Split factors are read
// innermost first, each the largest divisor of what is left of the extent that does not pass
// it (AdaptSplit), so they carry over to any shape.
const std::map<std::string, Preferred, std::less<>>& CpuTable() {
  static const std::map<std::string, Preferred, std::less<>> table{
      {"conv2d_oc_vec", kCpuChannelVector},
      {"conv2d_oc_vec_nchwc", kCpuChannelVector},
      {"conv2d_winograd_f2_nchwc", kCpuWinogradTiles},
      {"conv2d_winograd_f4_nchwc", kCpuWinogradF4Tiles},
      {"depthwise_conv2d_nchwc", {{"vec", {kNativeWidth}}, {"tile_oh", {2}}, {"tile_ow", {4}}, {"work_group", {4}}}},
      {"conv2d_direct_vec",
       {{"tile_f", {16, 1, 1, 4}},
        {"tile_y", {1, 1, 28, 2}},
        {"tile_x", {1, 1, 7, 8}},
        {"tile_rc", {2, 32}},
        {"tile_ry", {1, 3}},
        {"tile_rx", {1, 3}},
        {"auto_unroll_max_step", {512}},
        {"unroll_explicit", {1}},
        {"vec", {8}}}},
      {"conv2d_direct_global",
       {{"tile_f", {16, 1, 1, 4}},
        {"tile_y", {1, 1, 28, 2}},
        {"tile_x", {1, 1, 7, 4}},
        {"tile_rc", {2, 32}},
        {"tile_ry", {1, 3}},
        {"tile_rx", {1, 3}},
        {"auto_unroll_max_step", {512}},
        {"unroll_explicit", {1}}}},
      {"depthwise_conv2d_vec",
       {{"tile_f", {16, 2, 1, 1}},
        {"tile_y", {1, 2, 56, 1}},
        {"tile_x", {7, 1, 1, 16}},
        {"auto_unroll_max_step", {256}},
        {"unroll_explicit", {1}},
        {"vec", {8}}}},
      {"gemm_tiled", kCpuGemmTiles},
      {"batch_matmul_tiled", kCpuGemmTiles},
      // Eight vectors of columns per work-item, sixteen steps of K unrolled, one work-item per
      // group: 1.3-2.2x the former two vectors, four steps, groups of four on VGG-16's dense
      // layers at one and four rows (notebook, 2026-11-27); but see the template's FitToTheShape.
      {"gemm_rows", {{"vec", {kNativeWidth}}, {"nv", {8}}, {"unroll_k", {16}}, {"work_group", {1}}}},
      // With B in panels, four vectors and four steps of K: within a few percent of the best of
      // a grid on VGG-16's fc7 and fc8 at one row (notebook, 2026-11-29).
      {"gemm_rows_panels", {{"vec", {kNativeWidth}}, {"nv", {4}}, {"unroll_k", {4}}, {"work_group", {1}}}},
      {"conv2d_implicit_gemm",
       {{"tile_x", {1, 1, 4, 16}}, {"tile_y", {1, 1, 8, 4}}, {"tile_k", {1, 16, 1}}, {"auto_unroll_max_step", {64}}}},
  };
  return table;
}

// A GPU: work-groups of 64 to 256 work-items, each with a small register tile, operands staged
// in on-chip local memory, AutoTVM's usual CUDA/OpenCL tiles.
const std::map<std::string, Preferred, std::less<>>& GpuTable() {
  static const std::map<std::string, Preferred, std::less<>> table{
      {"gemm_tiled", kGpuGemmTiles},
      {"batch_matmul_tiled", kGpuGemmTiles},
      {"conv2d_implicit_gemm", kGpuGemmTiles},
      {"conv2d_direct_local", kGpuDirectTiles},
      {"conv2d_direct_global", kGpuDirectTiles},
      {"conv2d_winograd",
       {{"tile_y", {1, 1, 8, 2}}, {"tile_x", {1, 1, 8, 2}}, {"tile_rc", {1, 8}}, {"auto_unroll_max_step", {512}}}},
      {"depthwise_conv2d_direct",
       {{"tile_f", {1, 1, 8, 1}},
        {"tile_y", {1, 1, 4, 1}},
        {"tile_x", {1, 1, 8, 2}},
        {"auto_unroll_max_step", {256}},
        {"unroll_explicit", {1}}}},
      {"gemm_rows", {{"vec", {kNativeWidth}}, {"nv", {1}}, {"unroll_k", {4}}, {"work_group", {64}}}},
      {"gemm_rows_panels", {{"vec", {kNativeWidth}}, {"nv", {1}}, {"unroll_k", {4}}, {"work_group", {64}}}},
  };
  return table;
}

bool IsCpu(const DeviceInfo& device) { return device.type == "cpu"; }

// The widest float vector the device prefers: its native width (AVX-512: 16), else 16 on a CPU
// (the knob then takes the widest it offers) and 4 elsewhere.
int64_t NativeWidth(const DeviceInfo& device) {
  if (device.native_float_width > 0) return std::clamp<int64_t>(device.native_float_width, 1, 16);
  return IsCpu(device) ? 16 : 4;
}

// Knob rules that hold for every template: vectors as wide as the device's, a few work-items
// per group on a CPU and many on a GPU, local-memory staging only where local memory is on-chip.
Preferred GenericValues(const ConfigSpace& space, const DeviceInfo& device) {
  Preferred values;
  const bool cpu = IsCpu(device);
  for (const Knob& knob : space.knobs()) {
    const std::string& name = knob.name();
    if (name == "vec") values.push_back({name, {kNativeWidth}});
    if (name == "work_group") values.push_back({name, {cpu ? 4 : 64}});
    if (name.rfind("local_", 0) == 0 && knob.kind() == KnobKind::kCategorical) values.push_back({name, {cpu ? 0 : 1}});
    if (name == "pack_b") values.push_back({name, {0}});
  }
  return values;
}

// `value`, then for an ordered (discrete) knob its smaller values, largest first.
std::vector<KnobValue> SmallerFirstLargest(const ConfigSpace& space, const std::string& name, const KnobValue& value,
                                           int64_t width) {
  std::vector<KnobValue> candidates{value};
  if (value.size() != 1) return candidates;
  const int64_t wanted = value[0] == kNativeWidth ? width : value[0];
  for (size_t k = 0; k < space.num_knobs(); ++k) {
    const Knob& knob = space.knob(k);
    if (knob.name() != name || knob.kind() != KnobKind::kDiscrete) continue;
    for (size_t i = knob.size(); i-- > 0;)
      if (knob.value(i).size() == 1 && knob.value(i)[0] < wanted) candidates.push_back(knob.value(i));
  }
  return candidates;
}

void Set(KnobValues& values, const std::string& name, KnobValue value, int64_t width) {
  for (int64_t& v : value)
    if (v == kNativeWidth) v = width;
  for (auto& [n, v] : values)
    if (n == name) v = std::move(value);
}

std::optional<StartingConfig> ClassStartingConfig(const KernelTemplate& kernel, const ConfigSpace& space,
                                                  const DeviceInfo& device) {
  const Config untiled = UntiledConfig(space);
  KnobValues base;
  for (size_t k = 0; k < space.num_knobs(); ++k)
    base.emplace_back(space.knob(k).name(), space.knob(k).value(untiled[k]));
  const int64_t width = NativeWidth(device);
  // The table's values in its order, then the generic values of knobs it does not name. The
  // order is the order of precedence below, where not every value fits the shape: a table lists
  // its register tiles before its work-group size, and on a 7x7 image F(4x4)'s four tiles in a
  // work-item with groups of one beat one tile per work-item in groups of four (2.9 ms).
  Preferred preferred;
  const auto& table = IsCpu(device) ? CpuTable() : GpuTable();
  if (const auto it = table.find(kernel.name()); it != table.end()) preferred = it->second;
  for (auto& [name, value] : GenericValues(space, device))
    if (std::none_of(preferred.begin(), preferred.end(), [&](const auto& p) { return p.first == name; }))
      preferred.emplace_back(name, std::move(value));
  std::string note = std::string(IsCpu(device) ? "cpu" : "gpu") + " start (vector width " + std::to_string(width);
  const bool known = table.count(kernel.name()) > 0;
  if (!known) note += ", no tiles known for " + std::string(kernel.name());
  note += ")";

  // Every preferred value in; when the space rejects that, the preferred values one at a time,
  // each kept where the config stays valid (from the untiled config, valid on most spaces); an
  // ordered knob's preferred number that the shape rejects gives way to the largest smaller one
  // that it takes (four vectors of channels where a layer has only two: two).
  const auto valid = [&](const KnobValues& values) -> std::optional<Config> {
    const auto adapted = AdaptConfig(space, values);
    if (adapted && !adapted->why_invalid) return adapted->config;
    return std::nullopt;
  };
  KnobValues all = base;
  for (const auto& [name, value] : preferred) Set(all, name, value, width);
  if (auto config = valid(all)) return StartingConfig{*config, note, known};
  KnobValues kept = base;
  std::optional<Config> config = valid(kept);
  for (const auto& [name, value] : preferred) {
    for (const KnobValue& candidate : SmallerFirstLargest(space, name, value, width)) {
      KnobValues tried = kept;
      Set(tried, name, candidate, width);
      if (auto c = valid(tried)) {
        kept = std::move(tried);
        config = std::move(c);
        break;
      }
    }
  }
  if (config) return StartingConfig{*config, note + ", some values left out", known};
  Rng rng(1);
  if (auto drawn = DrawValidConfig(space, rng)) return StartingConfig{*drawn, note + ", a random valid config", false};
  return std::nullopt;
}

}  // namespace

std::optional<StartingConfig> DeviceStartingConfig(const KernelTemplate& kernel, const ConfigSpace& space,
                                                   const DeviceInfo& device, const Workload* workload) {
  auto start = ClassStartingConfig(kernel, space, device);
  if (start && workload) {
    const std::string fitted = kernel.FitToTheShape(*workload, space, device, start->config);
    if (!fitted.empty()) start->note += ", " + fitted;
  }
  return start;
}

}  // namespace tt
