#pragma once
// The register-tiling knobs of a GEMM C[M,N] = A[M,K] x B[K,N] in AutoTVM dense's form, for
// the templates that tile a GEMM or compute one implicitly (conv2d_implicit_gemm).
#include <cstdint>

#include "space/config_space.h"

namespace tt {

// tile_x splits `m` in 4 and tile_y splits `n` in 4 (work-groups, strided tiles per work-item,
// work-items, contiguous elements per work-item); tile_k splits `k` in 3 (staged steps, middle
// steps, always-unrolled inner steps); auto_unroll_max_step: the longest staged step whose
// middle loop is unrolled.
// kRoundedUp: the splits also cover each extent rounded up, the kernel guarding partial tiles
// (gemm_tiled); kExactOnly: exact factorizations of extents the caller has padded itself.
enum class GemmTails { kExactOnly, kRoundedUp };
void AddGemmTileKnobs(ConfigSpace& space, int64_t m, int64_t n, int64_t k, GemmTails tails);

}  // namespace tt
