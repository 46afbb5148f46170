#pragma once
// The knobs shared by the sketches whose work-items each compute a tile_oh x tile_ow block of
// output pixels, with guarded tails where no block divides the rows or columns, in work-groups
// of work_group items along the columns (conv2d_oc_vec, depthwise_conv2d_nchwc).
#include <optional>
#include <string>

#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt {

void AddPixelBlockKnobs(ConfigSpace& space, const ConvShape& s);

struct PixelBlock {
  int64_t oh, ow, work_group;

  PixelBlock(const ConfigSpace& space, const Config& c);
  int64_t column_blocks(const ConvShape& s) const { return (s.ow + ow - 1) / ow; }
  int64_t row_blocks(const ConvShape& s) const { return (s.oh + oh - 1) / oh; }
  // Why the work-group does not fit the device or is mostly idle.
  std::optional<std::string> WhyInvalid(const ConvShape& s, const DeviceLimits& limits) const;
  // -D TOH, TOW, WG.
  std::string BuildOptions() const;
  // (column blocks rounded up to work_group, row blocks, z) with work-groups work_group x 1 x 1.
  LaunchGeometry Geometry(const ConvShape& s, int64_t z) const;
};

}  // namespace tt
