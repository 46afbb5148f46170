#include "ops/pixel_blocks.h"

#include <algorithm>

#include "ops/build_options.h"

namespace tt {
namespace {

// The values of `values` up to `limit` (at least the first).
std::vector<int64_t> UpTo(std::vector<int64_t> values, int64_t limit) {
  std::erase_if(values, [limit](int64_t v) { return v > std::max<int64_t>(limit, 1); });
  return values;
}

}  // namespace

void AddPixelBlockKnobs(ConfigSpace& space, const ConvShape& s) {
  space.AddKnob(Knob::Discrete("tile_oh", UpTo({1, 2, 4}, s.oh)));
  space.AddKnob(Knob::Discrete("tile_ow", UpTo({1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 28}, s.ow)));
  space.AddKnob(Knob::Discrete("work_group", {1, 2, 4, 8, 16}));
}

PixelBlock::PixelBlock(const ConfigSpace& space, const Config& c)
    : oh(space.Scalar(c, "tile_oh")), ow(space.Scalar(c, "tile_ow")), work_group(space.Scalar(c, "work_group")) {}

std::optional<std::string> PixelBlock::WhyInvalid(const ConvShape& s, const DeviceLimits& limits) const {
  if (work_group > 1 && work_group / 2 >= column_blocks(s)) return "work_group exceeds the column blocks";
  return CheckDeviceLimits(work_group, 0, limits);
}

std::string PixelBlock::BuildOptions() const {
  return Define("TOH", oh) + Define("TOW", ow) + Define("WG", work_group);
}

LaunchGeometry PixelBlock::Geometry(const ConvShape& s, int64_t z) const {
  LaunchGeometry g;
  g.dims = 3;
  g.local = {static_cast<size_t>(work_group), 1, 1};
  g.global = {static_cast<size_t>((column_blocks(s) + work_group - 1) / work_group * work_group),
              static_cast<size_t>(row_blocks(s)), static_cast<size_t>(z)};
  return g;
}

}  // namespace tt
