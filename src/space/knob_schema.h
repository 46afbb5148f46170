#pragma once
// A template's knob schema: the names and kinds of its knobs (and each split's length), as
// one short hash. Two spaces with the same schema can read each other's configs by knob name,
// whatever the workload or the kernel source.
#include <string>

#include "space/config_space.h"

namespace tt {

// 16 hex digits (FNV-1a 64 of "name:kind:length;..."); independent of extents and values.
std::string KnobSchema(const ConfigSpace& space);

}  // namespace tt
