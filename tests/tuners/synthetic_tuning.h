#pragma once
// Spaces and objectives for tuner tests: tuning runs without a measurer, the "measurement"
// is a deterministic function of the config.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "space/config_space.h"
#include "tuners/tuner.h"
#include "tuners/tuner_factory.h"

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

// 15 * 10 * 3 * 5 * 3 = 6750 points with one best config, (2,4,2) (2,2,2) (2,2) unroll=4 axis=1.
inline ConfigSpace PeakSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_a", 16, 3));
  space.AddKnob(Knob::Split("tile_b", 8, 3));
  space.AddKnob(Knob::Split("tile_c", 4, 2));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8, 16}));
  space.AddKnob(Knob::Categorical("axis", {0, 1, 2}));
  return space;
}

// Halves with every step away from the peak over each knob's topology (for powers of two, the
// log2 distance of a split is twice the number of prime moves).
inline double PeakGflops(const ConfigSpace& space, const Config& c) {
  const auto split_steps = [&](std::string_view knob, const KnobValue& target) {
    double steps = 0;
    for (size_t j = 0; j < target.size(); ++j)
      steps += std::abs(std::log2(double(space.Value(c, knob)[j])) - std::log2(double(target[j])));
    return steps / 2;
  };
  const double distance = split_steps("tile_a", {2, 4, 2}) + split_steps("tile_b", {2, 2, 2}) +
                          split_steps("tile_c", {2, 2}) + std::abs(std::log2(double(space.Scalar(c, "unroll"))) - 2) +
                          (space.Scalar(c, "axis") == 1 ? 0 : 1);
  return 100 * std::pow(0.5, distance);
}

inline size_t TrialsToOptimum(Tuner& tuner, const ConfigSpace& space, const Config& optimum) {
  size_t trials = 0;
  while (true) {
    const auto batch = tuner.NextBatch(8);
    if (batch.empty()) return SIZE_MAX;
    std::vector<Observation> measured;
    for (const Config& c : batch) {
      ++trials;
      if (c == optimum) return trials;
      measured.push_back({c, MeasureStatus::kOk, PeakGflops(space, c)});
    }
    tuner.Update(measured);
  }
}

inline size_t Median(std::vector<size_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// PeakSpace's single best config.
inline Config PeakOptimum(const ConfigSpace& space) {
  return *space.FromKey("tile_a=[2,4,2];tile_b=[2,2,2];tile_c=[2,2];unroll=4;axis=1");
}

// Median over seeds 1..30 of the trials tuner `name` (default options) needs to measure
// PeakSpace's optimum.
inline size_t MedianTrialsToPeakOptimum(const std::string& name) {
  const ConfigSpace space = PeakSpace();
  std::vector<size_t> trials;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    auto tuner = MakeTuner(name, space, seed, {});
    trials.push_back(TrialsToOptimum(*tuner, space, PeakOptimum(space)));
  }
  return Median(trials);
}

}  // namespace tt::testing
