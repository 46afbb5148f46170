// Valid batch_matmul configurations compute the right answer on the default OpenCL device,
// for every transposition: each result is checked element by element against the CPU
// reference by the worker.
#include "cli/on_device.h"

#include <set>

#include "ops/matmul_templates.h"

namespace tt {
namespace {

// The kernel variants a config selects: each knob value that changes the code, vector loads
// of B with and without local staging (a transposed B is gathered otherwise), and both
// operands staged over several K steps of more than one element each.
std::set<std::string> Features(const ConfigSpace& space, const Config& c) {
  const std::string local_b = std::to_string(space.Scalar(c, "local_b"));
  const KnobValue k = space.Value(c, "tile_k");
  const bool staged_steps = space.Scalar(c, "local_a") && space.Scalar(c, "local_b") && k[0] > 1 && k[1] * k[2] > 1;
  return {"vec" + std::to_string(space.Scalar(c, "vec")),
          "local_a" + std::to_string(space.Scalar(c, "local_a")),
          "local_b" + local_b,
          "unrolled" + std::to_string(space.Scalar(c, "auto_unroll_max_step") > 0),
          "batch_items" + std::to_string(space.Value(c, "tile_b")[1] > 1),
          "vector" + std::to_string(space.Scalar(c, "vec") > 1) + "_local_b" + local_b,
          "staged_steps" + std::to_string(staged_steps)};
}

// Few valid configs that together show every feature some valid config of `space` has:
// greedy set cover over a random pool, so the build count stays small.
std::vector<Config> CoveringSample(const ConfigSpace& space, uint64_t seed) {
  const auto pool = testing::RandomValidConfigs(space, 3000, seed);
  std::set<std::string> missing;
  for (const Config& c : pool)
    for (const auto& f : Features(space, c)) missing.insert(f);
  std::vector<Config> sample;
  while (!missing.empty()) {
    const Config* best = nullptr;
    size_t best_gain = 0;
    for (const Config& c : pool) {
      size_t gain = 0;
      for (const auto& f : Features(space, c)) gain += missing.count(f);
      if (gain > best_gain) best = &c, best_gain = gain;
    }
    for (const auto& f : Features(space, *best)) missing.erase(f);
    sample.push_back(*best);
  }
  return sample;
}

struct Case {
  const char* shape;
  std::vector<std::string> flags;
  size_t min_configs;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.shape;
  for (const auto& flag : c.flags) *os << " " << flag;
}

class BatchMatmulOnDevice : public ::testing::TestWithParam<Case> {};

TEST_P(BatchMatmulOnDevice, CoveringSampleOfValidConfigsIsCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& bmm = BatchMatmulTiledTemplate();
  const Workload w = ParseWorkload("batch_matmul", GetParam().shape, GetParam().flags);
  const ConfigSpace space = bmm.Space(w, measurer.limits());
  const auto sample = CoveringSample(space, 5);
  ASSERT_GE(sample.size(), GetParam().min_configs);
  testing::ExpectAllCorrect(measurer, bmm, w, space, sample);
}

// 3,7,13,5: primes leave only vec 1 on exact splits (13 is also rounded up to 16); 2,16,32,8:
// every vector width up to 16.
INSTANTIATE_TEST_SUITE_P(
    Transpositions, BatchMatmulOnDevice,
    ::testing::Values(Case{"3,7,13,5", {}, 2}, Case{"2,16,32,8", {}, 4}, Case{"3,7,13,5", {"transpose_a"}, 2},
                      Case{"2,16,32,8", {"transpose_a"}, 4}, Case{"3,7,13,5", {"transpose_b"}, 2},
                      Case{"2,16,32,8", {"transpose_b"}, 4}, Case{"3,7,13,5", {"transpose_a", "transpose_b"}, 2},
                      Case{"2,16,32,8", {"transpose_a", "transpose_b"}, 4}));

// 61, 125 and 29 are rounded up to 64, 128 and 32: two configs with partial last tiles along
// all three, one of them staging A and B in local memory, without and with both operands
// transposed (the cases above add the single transpositions with 13 rounded up).
TEST(BatchMatmulOnDevice, PartialTilesOfOddShapesAreCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& bmm = BatchMatmulTiledTemplate();
  for (const auto& flags : std::vector<std::vector<std::string>>{{}, {"transpose_a", "transpose_b"}}) {
    const Workload w = ParseWorkload("batch_matmul", "3,61,125,29", flags);
    const ConfigSpace space = bmm.Space(w, measurer.limits());
    std::vector<Config> sample;
    for (const Config& c : testing::RandomValidConfigs(space, 300, 7)) {
      if (testing::PartialTiles(space, c) != "mnk") continue;
      const bool staged = space.Scalar(c, "local_a") && space.Scalar(c, "local_b");
      if (sample.size() == static_cast<size_t>(staged)) sample.push_back(c);
    }
    ASSERT_EQ(sample.size(), 2u) << w.Key();
    testing::ExpectAllCorrect(measurer, bmm, w, space, sample);
  }
}

}  // namespace
}  // namespace tt
