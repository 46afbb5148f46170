#include "cli/pins.h"

#include <stdexcept>

#include "core/errors.h"

namespace tt {

void ApplyPins(ConfigSpace& space, const std::vector<std::string>& pins) {
  for (const std::string& pin : pins) {
    const size_t eq = pin.find('=');
    if (eq == std::string::npos) throw UserError("--pin '" + pin + "' is not knob=value");
    try {
      space.Pin(pin.substr(0, eq), pin.substr(eq + 1));
    } catch (const std::invalid_argument& e) {
      throw UserError("--pin " + pin + ": " + e.what());
    }
  }
}

}  // namespace tt
