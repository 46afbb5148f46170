#pragma once
#include "ops/kernel_template.h"

namespace tt {

// Test-only template (op "selftest", not listed, and known to the command line only with
// TENSORTUNE_DIAGNOSTICS=1 in the environment): out = 2 * in, or on purpose a segfault, a
// hang, a wrong answer or a compile error, picked by the categorical knob "behaviour".
// Workload: selftest:n=<elements>. Behaviour values, in knob order:
enum class SelftestBehaviour { kOk = 0, kSegfault = 1, kHang = 2, kWrongAnswer = 3, kCompileError = 4 };

const KernelTemplate& SelftestFaultsTemplate();

}  // namespace tt
