#pragma once
#include "core/workload.h"

namespace tt {

// `workload` checked like a --shape (known operator, dimensions in range, in canonical
// order); throws UserError naming the problem. For workloads read from files.
Workload ValidatedWorkload(const Workload& workload);

}  // namespace tt
