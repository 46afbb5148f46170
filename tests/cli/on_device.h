#pragma once
// Checks kernel templates on the default OpenCL device: the worker measures each config and
// verifies its output element by element against the template's CPU reference.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "core/rng.h"
#include "measure/opencl_measurer.h"
#include "ops/kernel_template.h"

namespace tt::testing {

inline OpenClMeasurerOptions QuickMeasureOptions() {
  OpenClMeasurerOptions o;
  o.worker_path = TENSORTUNE_WORKER_BIN;
  o.min_time_s = 0.001;
  o.max_repeats = 2;
  o.timeout_s = 60;
  return o;
}

// Up to `count` distinct random valid configs.
inline std::vector<Config> RandomValidConfigs(const ConfigSpace& space, size_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<Config> configs;
  for (int tries = 0; tries < 200000 && configs.size() < count; ++tries) {
    const Config c = space.Random(rng);
    if (space.IsValid(c) && std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
  }
  return configs;
}

// Few configs of a random pool of valid ones that together show every feature (a string from
// `features`) that some config of the pool has: a greedy set cover, so the build count stays
// small while every code variant is compiled and checked.
template <class Features>
std::vector<Config> CoveringSample(const ConfigSpace& space, uint64_t seed, Features features) {
  const auto pool = RandomValidConfigs(space, 3000, seed);
  std::set<std::string> missing;
  for (const Config& c : pool)
    for (const auto& f : features(space, c)) missing.insert(f);
  std::vector<Config> sample;
  while (!missing.empty()) {
    const Config* best = nullptr;
    size_t best_gain = 0;
    for (const Config& c : pool) {
      size_t gain = 0;
      for (const auto& f : features(space, c)) gain += missing.count(f);
      if (gain > best_gain) best = &c, best_gain = gain;
    }
    for (const auto& f : features(space, *best)) missing.erase(f);
    sample.push_back(*best);
  }
  return sample;
}

// How a matmul config reads B: "global", "local" (staged) or "packed" (by the pack_b pre-pass).
inline std::string MatmulBSource(const ConfigSpace& space, const Config& c) {
  if (space.Scalar(c, "pack_b")) return "packed";
  return space.Scalar(c, "local_b") ? "local" : "global";
}

// One random valid config for each of these values of the knob "vec" (fewer when some width
// has no valid config).
inline std::vector<Config> OneConfigPerVectorWidth(const ConfigSpace& space, const std::vector<int64_t>& widths) {
  std::vector<Config> configs;
  const auto pool = RandomValidConfigs(space, 3000, 5);
  for (int64_t width : widths)
    for (const Config& c : pool)
      if (space.Scalar(c, "vec") == width) {
        configs.push_back(c);
        break;
      }
  return configs;
}

// The matmul splits of `c` whose last tile is partial ("m", "n", "k" for tile_x, tile_y,
// tile_k); value(0) of a split is [1, ..., 1, extent].
inline std::string PartialTiles(const ConfigSpace& space, const Config& c) {
  std::string partial;
  for (const auto& [knob, dim] : {std::pair{"tile_x", 'm'}, {"tile_y", 'n'}, {"tile_k", 'k'}}) {
    int64_t covered = 1;
    for (const int64_t f : space.Value(c, knob)) covered *= f;
    if (covered != space.knob(space.KnobIndex(knob)).value(0).back()) partial += dim;
  }
  return partial;
}

// Every config must measure with status ok, i.e. compute the reference's answer.
inline void ExpectAllCorrect(OpenClMeasurer& measurer, const KernelTemplate& t, const Workload& w,
                             const ConfigSpace& space, const std::vector<Config>& configs) {
  const auto results = measurer.Measure({&t, w, &space}, configs).results;
  for (size_t i = 0; i < configs.size(); ++i)
    EXPECT_EQ(results[i].status, MeasureStatus::kOk)
        << t.name() << " " << w.Key() << " " << space.Key(configs[i]) << ": " << results[i].error;
}

}  // namespace tt::testing

namespace tt::testing {

// A vector sketch computes right with 4-wide vectors up to the device's native width (16
// with AVX-512) on each of these shapes.
inline void ExpectWideVectorsCorrect(const KernelTemplate& t, const std::vector<const char*>& shapes) {
  OpenClMeasurer measurer(QuickMeasureOptions());
  const std::vector<int64_t> widths = FloatVectorWidths(measurer.limits(), 4);
  for (const char* shape : shapes) {
    const Workload w = ParseWorkload(t.op(), shape);
    const ConfigSpace space = t.Space(w, measurer.limits());
    const auto configs = OneConfigPerVectorWidth(space, widths);
    ASSERT_EQ(configs.size(), widths.size()) << shape;
    ExpectAllCorrect(measurer, t, w, space, configs);
  }
}

}  // namespace tt::testing
