#include "space/config_adapt.h"

#include <charconv>
#include <cstdlib>

namespace tt {
namespace {

bool ParseInt(std::string_view text, int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::optional<KnobValue> ParseValue(std::string_view text) {
  KnobValue value;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
    while (true) {
      const size_t comma = text.find(',');
      int64_t x;
      if (!ParseInt(text.substr(0, comma), x)) return std::nullopt;
      value.push_back(x);
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
    return value;
  }
  int64_t x;
  if (!ParseInt(text, x)) return std::nullopt;
  return KnobValue{x};
}

// The value of `knob` nearest to `wanted` (discrete knobs are sorted numbers).
uint32_t NearestDiscrete(const Knob& knob, int64_t wanted) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < knob.size(); ++i)
    if (std::llabs(knob.value(i)[0] - wanted) < std::llabs(knob.value(best)[0] - wanted)) best = i;
  return best;
}

std::optional<uint32_t> AdaptKnob(const Knob& knob, const KnobValue& recorded) {
  if (auto kept = knob.Find(recorded)) return kept;
  if (knob.size() == 1) return 0;  // a pinned knob keeps its one value
  switch (knob.kind()) {
    case KnobKind::kSplit: {
      if (recorded.size() != knob.value(0).size()) return std::nullopt;
      int64_t extent = 1;
      for (const int64_t f : knob.value(0)) extent *= f;
      return knob.Find(AdaptSplit(recorded, extent));
    }
    case KnobKind::kDiscrete:
      return NearestDiscrete(knob, recorded[0]);
    case KnobKind::kPermutation:
      if (recorded.size() != knob.value(0).size()) return std::nullopt;
      return 0;
    case KnobKind::kCategorical:
      return 0;
  }
  return std::nullopt;
}

}  // namespace

std::optional<KnobValues> ParseConfigKey(std::string_view key) {
  KnobValues values;
  while (!key.empty()) {
    const size_t end = key.find(';');
    const std::string_view item = key.substr(0, end);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    auto value = ParseValue(item.substr(eq + 1));
    if (!value) return std::nullopt;
    values.emplace_back(std::string(item.substr(0, eq)), std::move(*value));
    if (end == std::string_view::npos) break;
    key.remove_prefix(end + 1);
    if (key.empty()) return std::nullopt;  // a trailing ';'
  }
  return values;
}

const KnobValue* FindKnobValue(const KnobValues& values, std::string_view name) {
  for (const auto& [n, v] : values)
    if (n == name) return &v;
  return nullptr;
}

KnobValue AdaptSplit(const KnobValue& recorded, int64_t extent) {
  KnobValue adapted(recorded.size(), 1);
  if (adapted.empty()) return adapted;
  int64_t left = extent;
  for (size_t i = recorded.size(); i-- > 1;) {
    int64_t best = 1;
    for (int64_t d = 1; d <= left && d <= recorded[i]; ++d)
      if (left % d == 0) best = d;
    adapted[i] = best;
    left /= best;
  }
  adapted[0] = left;
  return adapted;
}

std::optional<AdaptedConfig> AdaptConfig(const ConfigSpace& space, const KnobValues& recorded) {
  AdaptedConfig adapted;
  for (const Knob& knob : space.knobs()) {
    const KnobValue* value = FindKnobValue(recorded, knob.name());
    if (!value || value->empty()) return std::nullopt;
    const auto index = AdaptKnob(knob, *value);
    if (!index) return std::nullopt;
    adapted.config.push_back(*index);
  }
  adapted.why_invalid = space.WhyInvalid(adapted.config);
  return adapted;
}

std::optional<Config> NearestValidConfig(const ConfigSpace& space, const Config& config) {
  if (space.IsValid(config)) return config;
  for (size_t k = space.num_knobs(); k-- > 0;) {
    const auto size = static_cast<int64_t>(space.knob(k).size());
    const auto at = static_cast<int64_t>(config[k]);
    for (int64_t step = 1; step < size; ++step) {
      for (const int64_t index : {at - step, at + step}) {
        if (index < 0 || index >= size) continue;
        Config changed = config;
        changed[k] = static_cast<uint32_t>(index);
        if (space.IsValid(changed)) return changed;
      }
    }
  }
  return std::nullopt;
}

}  // namespace tt
