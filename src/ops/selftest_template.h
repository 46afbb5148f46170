#pragma once
#include "ops/kernel_template.h"

namespace tt {

// Test-only template (op "selftest", not listed, and known to the command line only with
// TENSORTUNE_DIAGNOSTICS=1 in the environment): out = 2 * in, or on purpose a segfault, a
// hang, a wrong answer or a compile error, picked by the categorical knob "behaviour".
// Workload: selftest:n=<elements>. Behaviour values, in knob order; kSlow (one work-group
// finishes, a whole launch hangs: far slower than any best) only where n > 64, i.e. where a
// launch has several work-groups.
enum class SelftestBehaviour { kOk = 0, kSegfault = 1, kHang = 2, kWrongAnswer = 3, kCompileError = 4, kSlow = 5 };

const KernelTemplate& SelftestFaultsTemplate();

}  // namespace tt
