#include "space/knob_schema.h"

#include <cstdint>
#include <cstdio>

namespace tt {

std::string KnobSchema(const ConfigSpace& space) {
  std::string text;
  for (const Knob& knob : space.knobs()) {
    // A split's length is part of its meaning; a discrete knob may gain values and stay itself.
    const size_t length =
        knob.kind() == KnobKind::kSplit || knob.kind() == KnobKind::kPermutation ? knob.value(0).size() : 1;
    text += knob.name() + ":" + ToString(knob.kind()) + ":" + std::to_string(length) + ";";
  }
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace tt
