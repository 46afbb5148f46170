#include "cli/space_check.h"

#include "core/errors.h"
#include "core/rng.h"
#include "tuners/unseen_configs.h"

namespace tt {

void CheckSpaceHasValidConfig(const ConfigSpace& space, const std::vector<std::string>& pins) {
  UnseenConfigs unseen(space);
  Rng rng(1);
  if (unseen.Random(rng)) return;
  if (pins.empty()) throw UserError("no configuration of the search space is valid on this device");
  std::string given;
  for (const auto& pin : pins) given += " --pin " + pin;
  throw UserError("the pinned space is empty: no valid configuration has" + given);
}

}  // namespace tt
