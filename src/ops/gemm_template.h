#pragma once
#include "ops/kernel_template.h"

namespace tt {

// C = A x B, row-major, with AutoTVM dense-style splits (kernels/gemm.cl).
const KernelTemplate& GemmTiledTemplate();

}  // namespace tt
