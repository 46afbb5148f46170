#pragma once
// --pin knob=value options, shared by the commands that name a workload's space.
#include <string>
#include <vector>

#include "space/config_space.h"

namespace tt {

// Applies --pin knob=value options to `space`; throws UserError naming a bad one.
void ApplyPins(ConfigSpace& space, const std::vector<std::string>& pins);

}  // namespace tt
