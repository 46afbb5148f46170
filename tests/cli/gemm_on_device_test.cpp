// Valid GEMM configurations compute the right answer on the default OpenCL device: each
// result is checked element by element against the CPU reference by the worker.
#include "cli/on_device.h"

#include <map>

#include "ops/matmul_templates.h"

namespace tt {
namespace {

// For each (vec, local_a, local_b, unrolled) combination, one random valid config.
std::vector<Config> CoveringSample(const ConfigSpace& space, uint64_t seed) {
  Rng rng(seed);
  std::map<std::string, Config> by_kind;
  for (int tries = 0; tries < 200000 && by_kind.size() < 32; ++tries) {
    const Config c = space.Random(rng);
    if (!space.IsValid(c)) continue;
    const std::string kind = std::to_string(space.Scalar(c, "vec")) + std::to_string(space.Scalar(c, "local_a")) +
                             std::to_string(space.Scalar(c, "local_b")) +
                             std::to_string(space.Scalar(c, "auto_unroll_max_step") > 0);
    by_kind.emplace(kind, c);
  }
  std::vector<Config> sample;
  for (auto& [kind, c] : by_kind) sample.push_back(c);
  return sample;
}

void ExpectAllCorrect(const std::string& shape, size_t min_kinds) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& gemm = GemmTiledTemplate();
  const Workload w = ParseWorkload("gemm", shape);
  const ConfigSpace space = gemm.Space(w, measurer.limits());
  const auto sample = CoveringSample(space, 11);
  ASSERT_GE(sample.size(), min_kinds);
  testing::ExpectAllCorrect(measurer, gemm, w, space, sample);
}

TEST(GemmOnDevice, EveryVectorAndLocalMemoryVariantIsCorrect) { ExpectAllCorrect("48,40,24", 32); }

TEST(GemmOnDevice, PrimeAndOddShapesAreCorrect) { ExpectAllCorrect("7,13,5", 4); }

// Up to the native width: 16 floats on an AVX-512 device.
TEST(GemmOnDevice, WideVectorsAreCorrect) { testing::ExpectWideVectorsCorrect(GemmTiledTemplate(), {"24,48,16", "9,32,7"}); }

}  // namespace
}  // namespace tt
