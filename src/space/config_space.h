#pragma once
// A config space: knobs in a fixed order, mixed-radix indexing over their values, and the
// constraints that make a config invalid before anything is compiled.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "space/knob.h"

namespace tt {

// One value index per knob, in the space's knob order.
using Config = std::vector<uint32_t>;

class ConfigSpace {
 public:
  // Returns why `config` is invalid, or nullopt when it satisfies the constraint.
  using Constraint = std::function<std::optional<std::string>(const ConfigSpace&, const Config&)>;

  void AddKnob(Knob knob);
  void AddConstraint(Constraint constraint) { constraints_.push_back(std::move(constraint)); }
  // Holds knob `name` at the value written as in a key ("vec=8" -> "8", "[1,4,8,16]" for a
  // split), so that a search or a sweep covers the rest of the space; keys stay the same.
  // Throws std::invalid_argument naming the problem.
  void Pin(std::string_view name, std::string_view value_text);

  size_t num_knobs() const { return knobs_.size(); }
  const Knob& knob(size_t i) const { return knobs_[i]; }
  const std::vector<Knob>& knobs() const { return knobs_; }
  size_t KnobIndex(std::string_view name) const;  // throws std::out_of_range
  bool HasKnob(std::string_view name) const;

  // Number of points, valid or not (saturates at UINT64_MAX).
  uint64_t Size() const;
  Config FromIndex(uint64_t index) const;
  uint64_t ToIndex(const Config& config) const;
  Config Random(Rng& rng) const;  // uniform over all points, valid or not

  const KnobValue& Value(const Config& config, std::string_view knob) const;
  int64_t Scalar(const Config& config, std::string_view knob) const { return Value(config, knob)[0]; }

  std::optional<std::string> WhyInvalid(const Config& config) const;
  bool IsValid(const Config& config) const { return !WhyInvalid(config); }

  // Canonical text key: "tile_x=[1,4,8,16];vec=4;..." in knob order. Stable across runs.
  std::string Key(const Config& config) const;
  std::optional<Config> FromKey(std::string_view key) const;
  // AutoTVM-style entity list: [["tile_x","sp",[1,4,8,16]],["vec","ot",4],...]
  std::string ToJson(const Config& config) const;
  std::optional<Config> FromJson(std::string_view json) const;

 private:
  std::vector<Knob> knobs_;
  std::vector<Constraint> constraints_;
};

// Every split knob with all of its extent in the first factor, other knobs at their first
// value: the untuned starting point (G-BFS starts here; a network's default per layer).
Config UntiledConfig(const ConfigSpace& space);

// Spaces of at most this many points are enumerated to count their valid configs (seconds at
// most); larger ones are sampled.
inline constexpr uint64_t kCountableSpace = uint64_t{1} << 24;
// The valid configs of `space`, counting stopped once there are more than `stop_above`;
// nullopt when the space has more than kCountableSpace points.
std::optional<uint64_t> CountValidConfigs(const ConfigSpace& space, uint64_t stop_above = UINT64_MAX);

// Uniform draws until a valid config, at most kValidDraws; nullopt when none was valid.
inline constexpr int kValidDraws = 100'000;
std::optional<Config> DrawValidConfig(const ConfigSpace& space, Rng& rng);

}  // namespace tt
