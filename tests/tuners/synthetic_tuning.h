#pragma once
// Spaces and objectives for tuner tests: tuning runs without a measurer, the "measurement"
// is a deterministic function of the config.
#include <cmath>
#include <cstdint>
#include <vector>

#include "space/config_space.h"
#include "tuners/tuner.h"

namespace tt::testing {

// 15 * 4 * 3 = 180 points; tile[0] * unroll > 16 is invalid.
inline ConfigSpace SmallConstrainedSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile", 16, 3));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8}));
  space.AddKnob(Knob::Categorical("vec", {0, 1, 2}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Value(c, "tile")[0] * s.Scalar(c, "unroll") > 16) return "tile[0] * unroll > 16";
    return std::nullopt;
  });
  return space;
}

// 286 * 55 * 24 * 8 * 4 = 12,080,640 points (beyond UnseenConfigs::kEnumerableSize).
inline ConfigSpace LargeSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", 1024, 4));
  space.AddKnob(Knob::Split("tile_y", 512, 3));
  space.AddKnob(Knob::Permutation("order", 4));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8, 16, 32, 64, 128}));
  space.AddKnob(Knob::Categorical("vec", {0, 1, 2, 3}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Value(c, "tile_x")[3] * s.Value(c, "tile_y")[2] > 256) return "work group too large";
    return std::nullopt;
  });
  return space;
}

inline std::vector<Config> AllValid(const ConfigSpace& space) {
  std::vector<Config> valid;
  for (uint64_t i = 0; i < space.Size(); ++i)
    if (space.IsValid(space.FromIndex(i))) valid.push_back(space.FromIndex(i));
  return valid;
}

// Deterministic and varied; one config in seven "fails to compile" (fitness 0).
inline Observation SyntheticMeasure(const ConfigSpace& space, const Config& config) {
  const uint64_t index = space.ToIndex(config);
  if (index % 7 == 3) return {config, MeasureStatus::kCompileError, 0};
  double gflops = 1;
  for (size_t k = 0; k < config.size(); ++k) gflops += std::sin(1.0 + k + config[k] * 0.7) + 1;
  return {config, MeasureStatus::kOk, gflops};
}

// Proposes batches and feeds the results back until the tuner stops or max_trials are out.
inline std::vector<Config> Drive(Tuner& tuner, const ConfigSpace& space, size_t batch_size, size_t max_trials,
                                 bool feed_back = true) {
  std::vector<Config> proposed;
  while (proposed.size() < max_trials) {
    const size_t ask = std::min(batch_size, max_trials - proposed.size());
    std::vector<Config> batch = tuner.NextBatch(ask);
    if (batch.empty() || batch.size() > ask) break;
    std::vector<Observation> measured;
    for (const Config& c : batch) measured.push_back(SyntheticMeasure(space, c));
    if (feed_back) tuner.Update(measured);
    proposed.insert(proposed.end(), batch.begin(), batch.end());
  }
  return proposed;
}

}  // namespace tt::testing
