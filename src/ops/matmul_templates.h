#pragma once
#include "ops/kernel_template.h"

namespace tt {

// One kernel (kernels/matmul.cl) with AutoTVM dense-style splits: M and N in 4, K in 3, a
// vector width, local-memory staging of either operand and an unroll knob.
// C = A x B, row-major: the kernel with one batch entry.
const KernelTemplate& GemmTiledTemplate();
// GEMM with at most 8 rows (kernels/gemm_rows.cl): each work-item streams B along K for
// vec x nv columns of every row; a vector width, columns per work-item, a K unroll and the
// work-group size.
const KernelTemplate& GemmRowsTemplate();
// The same with B packed once in panels of 16 columns (layout KN16n), which a CPU streams faster.
const KernelTemplate& GemmRowsPanelsTemplate();
// Z[b] = op(X[b]) x op(Y[b]), optionally transposed operands, plus a batch split in 2.
const KernelTemplate& BatchMatmulTiledTemplate();

}  // namespace tt
