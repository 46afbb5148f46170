#include "ops/gemm_tile_knobs.h"

#include <vector>

namespace tt {
namespace {

// The extents that tile_x, tile_y and tile_k may also factor (Knob::SplitWithTail), so that
// sizes no good tile divides (1021 and 1019 are prime) get the tile shapes of their round
// neighbours, the kernel guarding the partial last tile: the extent rounded up to a multiple
// of 16, the widest float vector, so every vector width and the tiles of a multiple of 16
// fit; and to a multiple of 64, rich in powers of two where the multiple of 16 is not (1000
// becomes 1008 = 16 x 63 or 1024). Only when that adds at most a quarter of the extent: past
// that the padded rows and columns cost more than an exact smaller tile loses, and each
// rounding adds up to a few hundred values to the knob. Exact splits stay in the knob.
std::vector<int64_t> RoundedExtents(int64_t extent, GemmTails tails) {
  if (tails == GemmTails::kExactOnly) return {};
  std::vector<int64_t> rounded;
  for (const int64_t quantum : {16, 64}) {
    const int64_t r = (extent + quantum - 1) / quantum * quantum;
    if (r != extent && 4 * (r - extent) <= extent && (rounded.empty() || rounded.back() != r)) rounded.push_back(r);
  }
  return rounded;
}

}  // namespace

void AddGemmTileKnobs(ConfigSpace& space, int64_t m, int64_t n, int64_t k, GemmTails tails) {
  space.AddKnob(Knob::SplitWithTail("tile_x", m, 4, RoundedExtents(m, tails)));
  space.AddKnob(Knob::SplitWithTail("tile_y", n, 4, RoundedExtents(n, tails)));
  space.AddKnob(Knob::SplitWithTail("tile_k", k, 3, RoundedExtents(k, tails)));
  space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 16, 64, 512}));
}

}  // namespace tt
