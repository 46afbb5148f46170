#pragma once
// AutoTVM's "knob" features: a config described by its knob values alone, so the same
// features serve every template. Fixed length per space; deterministic.
#include <optional>
#include <vector>

#include "model/feature_matrix.h"
#include "space/config_adapt.h"
#include "space/config_space.h"

namespace tt {

class KnobFeatures {
 public:
  explicit KnobFeatures(const ConfigSpace& space);  // `space` must outlive this object

  // Features per config. Split: log2 of each factor; permutation: the position of each item;
  // discrete: the value; categorical: one-hot over its choices.
  size_t size() const { return size_; }
  std::vector<float> Of(const Config& config) const;
  FeatureMatrix Matrix(const std::vector<Config>& configs) const;
  // The same features of values recorded for another workload of this template (splits of
  // other extents, values this space lacks); nullopt when a knob is missing or has another
  // length. A categorical value this space lacks has no one-hot bit.
  std::optional<std::vector<float>> OfValues(const KnobValues& values) const;

 private:
  void Write(const Config& config, float* out) const;

  const ConfigSpace& space_;
  size_t size_ = 0;
};

}  // namespace tt
