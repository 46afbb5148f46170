// Valid batch_matmul configurations compute the right answer on the default OpenCL device,
// for every transposition: each result is checked element by element against the CPU
// reference by the worker.
#include <map>
#include <set>

#include "cli/on_device.h"
#include "ops/matmul_templates.h"

namespace tt {
namespace {

// The kernel variants a config selects: each knob value that changes the code, each way of
// reading B with and without vectors (a transposed B is gathered from global memory), and
// both operands staged over several K steps of more than one element each.
std::set<std::string> Features(const ConfigSpace& space, const Config& c) {
  const std::string b_source = testing::MatmulBSource(space, c);
  const KnobValue k = space.Value(c, "tile_k");
  const bool staged_steps = space.Scalar(c, "local_a") && space.Scalar(c, "local_b") && k[0] > 1 && k[1] * k[2] > 1;
  return {"vec" + std::to_string(space.Scalar(c, "vec")),
          "local_a" + std::to_string(space.Scalar(c, "local_a")),
          "b_" + b_source,
          "unrolled" + std::to_string(space.Scalar(c, "auto_unroll_max_step") > 0),
          "batch_items" + std::to_string(space.Value(c, "tile_b")[1] > 1),
          "vector" + std::to_string(space.Scalar(c, "vec") > 1) + "_b_" + b_source,
          "staged_steps" + std::to_string(staged_steps)};
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
  const auto sample = testing::CoveringSample(space, 5, Features);
  ASSERT_GE(sample.size(), GetParam().min_configs);
  testing::ExpectAllCorrect(measurer, bmm, w, space, sample);
}

// 3,7,13,5: primes leave only vec 1 on exact splits (13 is also rounded up to 16); 2,16,32,8:
// every vector width up to 16.
INSTANTIATE_TEST_SUITE_P(Transpositions, BatchMatmulOnDevice,
                         ::testing::Values(Case{"3,7,13,5", {}, 2}, Case{"2,16,32,8", {}, 4},
                                           Case{"3,7,13,5", {"transpose_a"}, 2}, Case{"2,16,32,8", {"transpose_a"}, 4},
                                           Case{"3,7,13,5", {"transpose_b"}, 2}, Case{"2,16,32,8", {"transpose_b"}, 4},
                                           Case{"3,7,13,5", {"transpose_a", "transpose_b"}, 2},
                                           Case{"2,16,32,8", {"transpose_a", "transpose_b"}, 4}));

// 61, 125 and 29 are rounded up to 64, 128 and 32: three configs with partial last tiles
// along all three, reading B from global memory, staged in local memory (with A) and packed,
// without and with both operands transposed (the cases above add the single transpositions
// with 13 rounded up).
TEST(BatchMatmulOnDevice, PartialTilesOfOddShapesAreCorrect) {
  OpenClMeasurer measurer(testing::QuickMeasureOptions());
  const KernelTemplate& bmm = BatchMatmulTiledTemplate();
  for (const auto& flags : std::vector<std::vector<std::string>>{{}, {"transpose_a", "transpose_b"}}) {
    const Workload w = ParseWorkload("batch_matmul", "3,61,125,29", flags);
    const ConfigSpace space = bmm.Space(w, measurer.limits());
    std::map<std::string, Config> by_source;
    for (const Config& c : testing::RandomValidConfigs(space, 600, 7)) {
      const std::string source = testing::MatmulBSource(space, c);
      if (testing::PartialTiles(space, c) == "mnk" && (source != "local" || space.Scalar(c, "local_a")))
        by_source.emplace(source, c);
    }
    ASSERT_EQ(by_source.size(), 3u) << w.Key();
    std::vector<Config> sample;
    for (const auto& [source, c] : by_source) sample.push_back(c);
    testing::ExpectAllCorrect(measurer, bmm, w, space, sample);
  }
}

}  // namespace
}  // namespace tt
