#pragma once
// Refusing a search space with nothing to measure before a run is recorded.
#include <string>
#include <vector>

#include "space/config_space.h"

namespace tt {

// Throws UserError when no configuration of `space` is valid, saying that the pins emptied it
// when there are any. Decides as the tuners do (UnseenConfigs): exactly for spaces they
// enumerate, by as many random draws as they would try for larger ones.
void CheckSpaceHasValidConfig(const ConfigSpace& space, const std::vector<std::string>& pins);

}  // namespace tt
