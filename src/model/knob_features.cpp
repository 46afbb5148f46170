#include "model/knob_features.h"

#include <algorithm>
#include <cmath>

namespace tt {
namespace {

size_t FeatureCount(const Knob& knob) {
  switch (knob.kind()) {
    case KnobKind::kSplit:
    case KnobKind::kPermutation:
      return knob.value(0).size();
    case KnobKind::kDiscrete:
      return 1;
    case KnobKind::kCategorical:
      return knob.size();
  }
  return 0;
}

// Writes FeatureCount(knob) features of `value` to `out`; `index` is its index in the knob,
// if it has one (only categorical knobs need it).
void WriteValue(const Knob& knob, const KnobValue& value, std::optional<uint32_t> index, float* out) {
  switch (knob.kind()) {
    case KnobKind::kSplit:
      for (size_t i = 0; i < value.size(); ++i) out[i] = static_cast<float>(std::log2(value[i]));
      return;
    case KnobKind::kPermutation:
      // value[p] is the item at position p; its inverse says where each item went.
      for (size_t p = 0; p < value.size(); ++p) out[value[p]] = static_cast<float>(p);
      return;
    case KnobKind::kDiscrete:
      out[0] = static_cast<float>(value[0]);
      return;
    case KnobKind::kCategorical:
      for (size_t i = 0; i < knob.size(); ++i) out[i] = index && i == *index ? 1.0f : 0.0f;
      return;
  }
}

}  // namespace

KnobFeatures::KnobFeatures(const ConfigSpace& space) : space_(space) {
  for (const auto& knob : space.knobs()) size_ += FeatureCount(knob);
}

std::vector<float> KnobFeatures::Of(const Config& config) const {
  std::vector<float> features(size_);
  Write(config, features.data());
  return features;
}

FeatureMatrix KnobFeatures::Matrix(const std::vector<Config>& configs) const {
  FeatureMatrix matrix{configs.size(), size_, std::vector<float>(configs.size() * size_)};
  for (size_t r = 0; r < configs.size(); ++r) Write(configs[r], matrix.values.data() + r * size_);
  return matrix;
}

void KnobFeatures::Write(const Config& config, float* out) const {
  for (size_t k = 0; k < space_.num_knobs(); ++k) {
    const Knob& knob = space_.knob(k);
    WriteValue(knob, knob.value(config[k]), config[k], out);
    out += FeatureCount(knob);
  }
}

std::optional<std::vector<float>> KnobFeatures::OfValues(const KnobValues& values) const {
  std::vector<float> features(size_);
  float* out = features.data();
  for (const Knob& knob : space_.knobs()) {
    const KnobValue* value = FindKnobValue(values, knob.name());
    const size_t length =
        knob.kind() == KnobKind::kSplit || knob.kind() == KnobKind::kPermutation ? knob.value(0).size() : 1;
    if (!value || value->size() != length) return std::nullopt;
    if (knob.kind() == KnobKind::kSplit && std::any_of(value->begin(), value->end(), [](int64_t f) { return f < 1; }))
      return std::nullopt;
    if (knob.kind() == KnobKind::kPermutation && !knob.Find(*value)) return std::nullopt;
    WriteValue(knob, *value, knob.Find(*value), out);
    out += FeatureCount(knob);
  }
  return features;
}

}  // namespace tt
