#include "space/config_space.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tt {
namespace {

// AutoTVM writes the first factor of a split as -1, "whatever is left of the extent".
void ResolveInferredFactor(const Knob& split, KnobValue& value) {
  if (value.empty() || value[0] != -1 || split.size() == 0) return;
  int64_t extent = 1, rest = 1;
  for (int64_t f : split.value(0)) extent *= f;
  for (size_t i = 1; i < value.size(); ++i) rest *= value[i];
  if (rest > 0 && extent % rest == 0) value[0] = extent / rest;
}

std::string ValueText(const Knob& knob, const KnobValue& v) {
  if (knob.kind() == KnobKind::kDiscrete || knob.kind() == KnobKind::kCategorical) return std::to_string(v[0]);
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// Inverse of ValueText; integers only (json would also turn 4.5 or true into a number).
std::optional<KnobValue> ParseValueText(std::string_view text) {
  const auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  KnobValue value;
  for (const auto& x : parsed.is_array() ? parsed : nlohmann::json::array({parsed})) {
    if (!x.is_number_integer()) return std::nullopt;
    value.push_back(x.get<int64_t>());
  }
  if (value.empty()) return std::nullopt;
  return value;
}

// AutoTVM's entity kinds: "sp" split, "re" reorder, "ot" other.
const char* EntityKind(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "sp";
    case KnobKind::kPermutation:
      return "re";
    default:
      return "ot";
  }
}

}  // namespace

void ConfigSpace::AddKnob(Knob knob) {
  for (const auto& k : knobs_)
    if (k.name() == knob.name()) throw std::invalid_argument("duplicate knob '" + knob.name() + "'");
  knobs_.push_back(std::move(knob));
}

void ConfigSpace::Pin(std::string_view name, std::string_view value_text) {
  const auto knob = std::find_if(knobs_.begin(), knobs_.end(), [&](const Knob& k) { return k.name() == name; });
  if (knob == knobs_.end()) throw std::invalid_argument("no knob '" + std::string(name) + "' to pin");
  const auto value = ParseValueText(value_text);
  if (!value || !knob->Find(*value))
    throw std::invalid_argument("knob " + std::string(name) + " has no value '" + std::string(value_text) + "'");
  *knob = knob->Pinned(*value);
}

size_t ConfigSpace::KnobIndex(std::string_view name) const {
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].name() == name) return i;
  throw std::out_of_range("config space has no knob '" + std::string(name) + "'");
}

bool ConfigSpace::HasKnob(std::string_view name) const {
  return std::any_of(knobs_.begin(), knobs_.end(), [&](const Knob& k) { return k.name() == name; });
}

uint64_t ConfigSpace::Size() const {
  uint64_t size = 1;
  for (const auto& k : knobs_) {
    if (size > UINT64_MAX / k.size()) return UINT64_MAX;
    size *= k.size();
  }
  return size;
}

// Mixed radix with the last knob varying fastest.
Config ConfigSpace::FromIndex(uint64_t index) const {
  Config config(knobs_.size());
  for (size_t i = knobs_.size(); i-- > 0;) {
    config[i] = static_cast<uint32_t>(index % knobs_[i].size());
    index /= knobs_[i].size();
  }
  return config;
}

uint64_t ConfigSpace::ToIndex(const Config& config) const {
  uint64_t index = 0;
  for (size_t i = 0; i < knobs_.size(); ++i) index = index * knobs_[i].size() + config[i];
  return index;
}

Config ConfigSpace::Random(Rng& rng) const {
  Config config(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i) config[i] = static_cast<uint32_t>(rng.Below(knobs_[i].size()));
  return config;
}

const KnobValue& ConfigSpace::Value(const Config& config, std::string_view knob) const {
  const size_t i = KnobIndex(knob);
  return knobs_[i].value(config[i]);
}

std::optional<std::string> ConfigSpace::WhyInvalid(const Config& config) const {
  if (config.size() != knobs_.size())
    return "config has " + std::to_string(config.size()) + " knobs, space has " + std::to_string(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (config[i] >= knobs_[i].size()) return "value index out of range for knob " + knobs_[i].name();
  for (const auto& constraint : constraints_)
    if (auto why = constraint(*this, config)) return why;
  return std::nullopt;
}

std::string ConfigSpace::Key(const Config& config) const {
  std::string key;
  for (size_t i = 0; i < knobs_.size(); ++i) {
    if (i) key += ';';
    key += knobs_[i].name() + "=" + ValueText(knobs_[i], knobs_[i].value(config[i]));
  }
  return key;
}

std::optional<Config> ConfigSpace::FromKey(std::string_view key) const {
  Config config;
  size_t pos = 0;
  for (const auto& knob : knobs_) {
    const size_t end = std::min(key.find(';', pos), key.size());
    if (pos > key.size()) return std::nullopt;  // the key ended before this knob
    const std::string_view item = key.substr(pos, end - pos);
    const std::string prefix = knob.name() + "=";
    if (item.substr(0, prefix.size()) != prefix) return std::nullopt;
    const auto value = ParseValueText(item.substr(prefix.size()));
    const auto index = value ? knob.Find(*value) : std::nullopt;
    if (!index) return std::nullopt;
    config.push_back(*index);
    pos = end + 1;
  }
  // Every knob consumed exactly the whole key: no missing knob, no trailing text or ';'.
  if (knobs_.empty() ? !key.empty() : pos != key.size() + 1) return std::nullopt;
  return config;
}

std::string ConfigSpace::ToJson(const Config& config) const {
  nlohmann::json entity = nlohmann::json::array();
  for (size_t i = 0; i < knobs_.size(); ++i) {
    const Knob& k = knobs_[i];
    const KnobValue& v = k.value(config[i]);
    nlohmann::json value =
        (k.kind() == KnobKind::kSplit || k.kind() == KnobKind::kPermutation) ? nlohmann::json(v) : nlohmann::json(v[0]);
    entity.push_back({k.name(), EntityKind(k.kind()), value});
  }
  return entity.dump();
}

std::optional<Config> ConfigSpace::FromJson(std::string_view json) const {
  nlohmann::json entity;
  try {
    entity = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (!entity.is_array() || entity.size() != knobs_.size()) return std::nullopt;
  Config config(knobs_.size());
  std::vector<bool> seen(knobs_.size());
  for (const auto& item : entity) {
    if (!item.is_array() || item.size() != 3 || !item[0].is_string()) return std::nullopt;
    size_t i;
    try {
      i = KnobIndex(item[0].get<std::string>());
    } catch (const std::out_of_range&) {
      return std::nullopt;
    }
    KnobValue value;
    if (item[2].is_array() && item[2].size() > 0) {
      for (const auto& x : item[2]) {
        if (!x.is_number_integer()) return std::nullopt;
        value.push_back(x.get<int64_t>());
      }
    } else if (item[2].is_number_integer()) {
      value = {item[2].get<int64_t>()};
    } else {
      return std::nullopt;
    }
    if (knobs_[i].kind() == KnobKind::kSplit) ResolveInferredFactor(knobs_[i], value);
    const auto index = knobs_[i].Find(value);
    if (!index || seen[i]) return std::nullopt;
    config[i] = *index;
    seen[i] = true;
  }
  return config;
}

Config UntiledConfig(const ConfigSpace& space) {
  Config start(space.num_knobs(), 0);
  for (size_t k = 0; k < space.num_knobs(); ++k) {
    const Knob& knob = space.knob(k);
    if (knob.kind() != KnobKind::kSplit) continue;
    KnobValue untiled(knob.value(0).size(), 1);
    untiled[0] = 1;
    for (int64_t f : knob.value(0)) untiled[0] *= f;
    start[k] = knob.Find(untiled).value_or(0);
  }
  return start;
}

std::optional<uint64_t> CountValidConfigs(const ConfigSpace& space, uint64_t stop_above) {
  if (space.Size() > kCountableSpace) return std::nullopt;
  uint64_t valid = 0;
  for (uint64_t i = 0; i < space.Size() && valid <= stop_above; ++i) valid += space.IsValid(space.FromIndex(i));
  return valid;
}

std::optional<Config> DrawValidConfig(const ConfigSpace& space, Rng& rng) {
  for (int draw = 0; draw < kValidDraws; ++draw)
    if (Config c = space.Random(rng); space.IsValid(c)) return c;
  return std::nullopt;
}

}  // namespace tt
