#include "schedule/sketch_prior.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ops/conv_shape.h"
#include "schedule/sketch_selector.h"

namespace tt {
namespace {

// A kernel size or stride apart changes which sketch wins far more than a channel count.
constexpr double kShapeDimWeight = 4;
// Evidence this light (one dissimilar workload) moves the prior only part of the way.
constexpr double kDevicePreferenceWeight = 0.1;
constexpr double kLocalMemoryOnCpu = 0.5;
// Not vectorized over channels, on a CPU: still worth a first look (at least kNothingAgainst),
// after the sketches that are.
constexpr double kNoChannelVectorsOnCpu = 0.93;
static_assert(kNoChannelVectorsOnCpu >= kNothingAgainst);
// Among the sketches with vectors over channels on a CPU, first those that read and write
// channel blocks (whole vectors from contiguous memory, and no layout conversions between
// layers that do the same), and among those, first the ones that multiply less: Winograd
// (F(2x2,3x3) 2.25x fewer multiplies than the direct convolution, F(4x4,3x3) 4x), then the
// direct ones.
constexpr double kPlainChannelsOnCpu = 0.95;
constexpr double kDirectOnCpu = 0.97;
// Of the two Winograd tiles, F(4x4) first where the output holds at least kLargeTilesFirst of
// its 4x4 tiles (14x14 and up), F(2x2) first on smaller images: F(4x4) transforms each weight
// to 36 values against 16, read for fewer tiles. ResNet-18 on a Zen 5 core: F(4x4)'s first looks
// 1.3x faster than F(2x2)'s starts at 14x14 to 56x56, 1.7x slower at 7x7 with 512 channels, where
// its 38 MB of transformed weights pass the L3 (notebook, 2026-11-29, late evening); on Zen 4,
// 400-trial runs chose F(4x4) on all four. The other tile still gets a look before any second one.
constexpr int64_t kLargeTilesFirst = 16;
constexpr double kSecondWinogradTileOnCpu = 0.99;
static_assert(kPlainChannelsOnCpu > kNoChannelVectorsOnCpu);
// On a GPU, local memory is the fast on-chip scratchpad that the GPU schedules these templates
// come from were written for: sketches that stage tiles there get the first looks.
constexpr double kNoLocalMemoryOnGpu = 0.95;
static_assert(kNoLocalMemoryOnGpu >= kNothingAgainst);

// Whether the sketch writes its output in channel blocks (NCHW16c): its activations are blocked.
bool WritesChannelBlocks(const KernelTemplate& sketch, const Workload& workload) {
  const std::vector<BufferSpec> buffers = sketch.Buffers(workload);
  for (const size_t i : sketch.ChannelBlockedBuffers(workload))
    if (i < buffers.size() && buffers[i].is_output) return true;
  return false;
}

// How far a loss of `mine` to `fastest` on one workload counts: in full where it was tried at
// least as often or cannot win (kCannotWin), else in proportion to its trials. ResNet-18's 7x7
// layer measured F(4x4) once at a third of F(2x2)'s best of fifty-odd trials, and that loss
// kept F(4x4) from every other layer, where it is the faster sketch (notebook, 2026-11-28).
double Evenness(const SketchEvidence& e, const std::string& mine, const std::string& fastest, double ratio) {
  const auto n_mine = e.trials.find(mine), n_fastest = e.trials.find(fastest);
  if (mine == fastest || ratio < kCannotWin || n_mine == e.trials.end() || n_fastest == e.trials.end() ||
      n_fastest->second <= 0)
    return 1;
  return std::min(1.0, static_cast<double>(n_mine->second) / static_cast<double>(n_fastest->second));
}

bool LargeWinogradTileFirst(const Workload& workload) {
  const ConvShape s = ConvShape::Of(workload);
  return ((s.oh + 3) / 4) * ((s.ow + 3) / 4) >= kLargeTilesFirst;
}

double DevicePreference(const KernelTemplate& sketch, const Workload& workload, const DeviceInfo& device) {
  if (sketch.specialist()) return 1;
  if (device.type == "gpu") return sketch.stages_in_local_memory() ? 1 : kNoLocalMemoryOnGpu;
  if (device.type != "cpu") return 1;
  if (sketch.stages_in_local_memory()) return kLocalMemoryOnCpu;
  if (!sketch.vectorizes_channels()) return kNoChannelVectorsOnCpu;
  if (!WritesChannelBlocks(sketch, workload)) return kPlainChannelsOnCpu;
  if (sketch.winograd_tile() == 0) return kDirectOnCpu;
  return (sketch.winograd_tile() > 2) == LargeWinogradTileFirst(workload) ? 1 : kSecondWinogradTileOnCpu;
}

}  // namespace

double WorkloadSimilarity(const Workload& a, const Workload& b) {
  if (a.op != b.op) return 0;
  double distance = 0;
  for (const auto& [name, value] : a.dims) {
    const auto other = std::find_if(b.dims.begin(), b.dims.end(), [&](const auto& d) { return d.first == name; });
    const double x = static_cast<double>(std::max<int64_t>(value, 1));
    const double y = other == b.dims.end() ? 1 : static_cast<double>(std::max<int64_t>(other->second, 1));
    distance += (IsWindowDim(name) ? kShapeDimWeight : 1) * std::fabs(std::log2(x) - std::log2(y));
  }
  return 1 / (1 + distance);
}

std::vector<SketchPrior> SketchPriors(const Workload& workload, const std::vector<const KernelTemplate*>& sketches,
                                      const std::vector<SketchEvidence>& evidence, const DeviceInfo& device) {
  std::vector<SketchPrior> priors;
  for (const KernelTemplate* sketch : sketches) {
    // A weighted geometric mean of the ratios, with the device's preference as a light pseudo-observation.
    const double preference = DevicePreference(*sketch, workload, device);
    double weight = kDevicePreferenceWeight, log_sum = kDevicePreferenceWeight * std::log(preference);
    SketchPrior prior;
    for (const SketchEvidence& e : evidence) {
      if (e.workload == workload || e.best_time_s.size() < 2) continue;
      const auto mine = e.best_time_s.find(std::string(sketch->name()));
      if (mine == e.best_time_s.end() || mine->second <= 0) continue;
      double fastest = mine->second;
      std::string fastest_name = mine->first;
      for (const auto& [name, t] : e.best_time_s)
        if (t > 0 && t < fastest) fastest = t, fastest_name = name;
      const double w =
          WorkloadSimilarity(workload, e.workload) * Evenness(e, mine->first, fastest_name, fastest / mine->second);
      weight += w;
      log_sum += w * std::log(fastest / mine->second);
      prior.evidence += w;
      ++prior.workloads;
    }
    prior.ratio = std::exp(log_sum / weight);
    priors.push_back(prior);
  }
  return priors;
}

std::string DescribePrior(const SketchPrior& prior, const KernelTemplate& sketch, const Workload& workload,
                          const DeviceInfo& device) {
  if (prior.workloads > 0)
    return fmt::format("{:.2f} of the fastest sketch on {} other workload{}", prior.ratio, prior.workloads,
                       prior.workloads == 1 ? "" : "s");
  const double preference = DevicePreference(sketch, workload, device);
  if (sketch.specialist()) return "no evidence; written for shapes like this one";
  if (preference == 1) return "no evidence yet";
  if (device.type == "gpu") return "no evidence; on a GPU, sketches that stage tiles in local memory go first";
  if (sketch.stages_in_local_memory()) return "no evidence; it stages tiles in local memory, ordinary memory on a CPU";
  if (preference == kNoChannelVectorsOnCpu)
    return "no evidence; on a CPU, sketches with vectors over channels go first";
  if (preference == kPlainChannelsOnCpu)
    return "no evidence; on a CPU, sketches on channel-blocked activations go first";
  if (preference == kDirectOnCpu)
    return "no evidence; on a CPU, Winograd (fewer multiplies) goes first where it applies";
  return LargeWinogradTileFirst(workload)
             ? fmt::format("no evidence; on a CPU, Winograd F(4x4,3x3) goes first on images of {} or more of its tiles",
                           kLargeTilesFirst)
             : fmt::format(
                   "no evidence; on a CPU, Winograd F(2x2,3x3) goes first on images of fewer than {} F(4x4) tiles",
                   kLargeTilesFirst);
}

}  // namespace tt
