#include "ops/gemm_tile_knobs.h"

namespace tt {

void AddGemmTileKnobs(ConfigSpace& space, int64_t m, int64_t n, int64_t k) {
  space.AddKnob(Knob::Split("tile_x", m, 4));
  space.AddKnob(Knob::Split("tile_y", n, 4));
  space.AddKnob(Knob::Split("tile_k", k, 3));
  space.AddKnob(Knob::Discrete("auto_unroll_max_step", {0, 16, 64, 512}));
}

}  // namespace tt
