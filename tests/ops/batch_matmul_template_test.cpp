#include <gtest/gtest.h>

#include <map>

#include "core/errors.h"
#include "ops/kernel_template.h"
#include "ops/matmul_templates.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kCpuLimits{4096, 512 * 1024};

const KernelTemplate& Bmm() { return BatchMatmulTiledTemplate(); }

TEST(ParseWorkload, BatchMatmulTakesFourIntegersAndTransposeFlags) {
  EXPECT_EQ(ParseWorkload("batch_matmul", "960,128,64,128").Key(),
            "batch_matmul:b=960,m=128,n=64,k=128,transpose_a=0,transpose_b=0");
  EXPECT_EQ(ParseWorkload("batch_matmul", "960,128,64,128", {"transpose_a"}).Key(),
            "batch_matmul:b=960,m=128,n=64,k=128,transpose_a=1,transpose_b=0");
  EXPECT_EQ(ParseWorkload("batch_matmul", "960,128,64,128", {"transpose_b", "transpose_a"}).Key(),
            "batch_matmul:b=960,m=128,n=64,k=128,transpose_a=1,transpose_b=1");
  EXPECT_THROW(ParseWorkload("batch_matmul", "960,128,64"), UserError);
  EXPECT_THROW(ParseWorkload("batch_matmul", "960,128,64,0"), UserError);
  EXPECT_THROW(ParseWorkload("gemm", "128,64,128", {"transpose_a"}), UserError);
}

TEST(Registry, ListsBatchMatmul) {
  EXPECT_EQ(FindTemplate("batch_matmul_tiled"), &Bmm());
  EXPECT_EQ(Bmm().op(), "batch_matmul");
  EXPECT_FALSE(Bmm().description().empty());
  EXPECT_NE(Bmm().SourceHash(), "");
  const Workload w = ParseWorkload("batch_matmul", "2,3,4,5");
  EXPECT_EQ(&PickTemplate(w, ""), &Bmm());
  EXPECT_EQ(Bmm().Flops(w), 2.0 * 2 * 3 * 4 * 5);
}

TEST(BatchMatmulSpace, HasBatchSplitAndAutoTvmDenseKnobs) {
  const ConfigSpace space = Bmm().Space(ParseWorkload("batch_matmul", "12,64,48,32"), kCpuLimits);
  const std::map<std::string, size_t> arity = {{"tile_b", 2}, {"tile_x", 4}, {"tile_y", 4}, {"tile_k", 3}};
  for (const auto& [name, parts] : arity) EXPECT_EQ(space.knob(space.KnobIndex(name)).value(0).size(), parts);
  EXPECT_EQ(space.knob(space.KnobIndex("tile_b")).size(), 6u);  // divisors of 12
  for (const char* name : {"auto_unroll_max_step", "vec", "local_a", "local_b", "pack_b"})
    EXPECT_NO_THROW(space.KnobIndex(name)) << name;
}

std::string WhyInvalid(const ConfigSpace& space, const Config& c) { return space.WhyInvalid(c).value_or(""); }

TEST(BatchMatmulSpace, DeviceLimitsAndTemplateRulesInvalidateBeforeCompiling) {
  const Workload w = ParseWorkload("batch_matmul", "4,256,256,64");
  const ConfigSpace space = Bmm().Space(w, {256, 16 * 1024});
  const Config fine =
      Pick(space, {{"tile_b", {4, 1}}, {"tile_x", {16, 1, 16, 1}}, {"tile_y", {16, 1, 16, 1}}, {"tile_k", {64, 1, 1}}});
  EXPECT_TRUE(space.IsValid(fine)) << WhyInvalid(space, fine);

  // The batch work-items count towards the work-group size.
  const Config big_group = Pick(space, {{"tile_b", {2, 2}}, {"tile_x", {16, 1, 16, 1}}, {"tile_y", {16, 1, 16, 1}}});
  EXPECT_NE(WhyInvalid(space, big_group).find("work-group size 512"), std::string::npos);

  // 16 KiB of tiles per batch entry fit; two batch entries per group do not.
  std::map<std::string, KnobValue> staged = {{"tile_b", {4, 1}},    {"tile_x", {4, 2, 8, 4}}, {"tile_y", {4, 1, 16, 4}},
                                             {"tile_k", {2, 8, 4}}, {"local_a", {1}},         {"local_b", {1}}};
  EXPECT_TRUE(space.IsValid(Pick(space, staged))) << WhyInvalid(space, Pick(space, staged));
  staged["tile_b"] = {2, 2};
  EXPECT_NE(WhyInvalid(space, Pick(space, staged)).find("local memory 32768 B"), std::string::npos);

  const Config bad_vector =
      Pick(space, {{"tile_b", {4, 1}}, {"tile_x", {16, 1, 16, 1}}, {"tile_y", {16, 1, 8, 2}}, {"vec", {4}}});
  EXPECT_NE(WhyInvalid(space, bad_vector).find("vec 4"), std::string::npos);

  const Config many_accumulators =
      Pick(space, {{"tile_b", {4, 1}}, {"tile_x", {16, 1, 1, 16}}, {"tile_y", {8, 1, 1, 32}}});
  EXPECT_NE(WhyInvalid(space, many_accumulators).find("accumulators"), std::string::npos);
}

// Replays the kernel's index arithmetic: every element of Z must be written by exactly one
// work-item, for every valid config of a small odd-shaped space.
TEST(BatchMatmulGeometry, EveryValidConfigCoversEachOutputOnce) {
  const Workload w = ParseWorkload("batch_matmul", "6,6,10,2");
  const ConfigSpace space = Bmm().Space(w, kCpuLimits);
  const int64_t batch = 6, m = 6, n = 10;
  size_t checked = 0;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config c = space.FromIndex(i);
    if (!space.IsValid(c) || space.Scalar(c, "local_a") || space.Scalar(c, "local_b") ||
        space.Scalar(c, "auto_unroll_max_step"))
      continue;
    const KnobValue x = space.Value(c, "tile_x"), y = space.Value(c, "tile_y");
    const LaunchGeometry g = Bmm().Geometry(w, space, c);
    ASSERT_EQ(g.dims, 3u);
    ASSERT_EQ(g.local[0] * g.local[1] * g.local[2], static_cast<size_t>(space.Value(c, "tile_b")[1] * x[2] * y[2]));
    std::vector<int> writes(batch * m * n, 0);
    for (size_t gx = 0; gx < g.global[0]; ++gx)
      for (size_t gy = 0; gy < g.global[1]; ++gy)
        for (size_t gz = 0; gz < g.global[2]; ++gz) {
          const int64_t ln = gx % g.local[0], lm = gy % g.local[1];
          const int64_t n0 = gx / g.local[0] * y[1] * y[2] * y[3], m0 = gy / g.local[1] * x[1] * x[2] * x[3];
          for (int64_t i1 = 0; i1 < x[1]; ++i1)
            for (int64_t i3 = 0; i3 < x[3]; ++i3)
              for (int64_t j1 = 0; j1 < y[1]; ++j1)
                for (int64_t j3 = 0; j3 < y[3]; ++j3) {
                  const int64_t r = m0 + i1 * x[2] * x[3] + lm * x[3] + i3;
                  const int64_t col = n0 + j1 * y[2] * y[3] + ln * y[3] + j3;
                  ++writes[(static_cast<int64_t>(gz) * m + r) * n + col];
                }
        }
    ASSERT_EQ(std::count(writes.begin(), writes.end(), 1), batch * m * n) << space.Key(c);
    ++checked;
  }
  EXPECT_GT(checked, 1000u);
}

// A packed B holds the panels of every batch entry; the pre-pass runs one row of work-groups
// per entry.
TEST(BatchMatmulPrePass, PacksThePanelsOfEveryBatchEntry) {
  const Workload w = ParseWorkload("batch_matmul", "6,32,64,16", {"transpose_b"});
  const ConfigSpace space = Bmm().Space(w, kCpuLimits);
  const Config c = Pick(
      space,
      {{"tile_b", {3, 2}}, {"tile_x", {2, 2, 4, 2}}, {"tile_y", {4, 1, 4, 4}}, {"tile_k", {4, 2, 2}}, {"pack_b", {1}}});
  ASSERT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  const auto pass = Bmm().PrePassOf(w, space, c);
  ASSERT_TRUE(pass);
  EXPECT_EQ(pass->scratch_elements, 6u * 4 * 16 * 16);
  EXPECT_EQ(pass->geometry.global, (std::array<size_t, 3>{4 * 16, 6, 1}));
}

TEST(BatchMatmulBuildOptions, CarryEveryKnobAndTheTranspositions) {
  const Workload w = ParseWorkload("batch_matmul", "8,64,64,64", {"transpose_b"});
  const ConfigSpace space = Bmm().Space(w, kCpuLimits);
  const Config c = Pick(space, {{"tile_b", {4, 2}},
                                {"tile_x", {2, 2, 4, 4}},
                                {"tile_y", {1, 2, 4, 8}},
                                {"tile_k", {4, 2, 8}},
                                {"vec", {4}},
                                {"auto_unroll_max_step", {16}},
                                {"local_b", {1}}});
  const std::string options = Bmm().BuildOptions(w, space, c);
  for (const char* expected :
       {"-D M=64", "-D TRANS_A=0", "-D TRANS_B=1", "-D TB0=4", "-D TB1=2", "-D TX0=2", "-D TX3=4", "-D TY3=8",
        "-D TK2=8", "-D VEC=4", "-D UNROLL_K=1", "-D LOCAL_A=0", "-D LOCAL_B=1"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
}

// Z[b][i][j] = sum_l op(X[b])[i][l] * op(Y[b])[l][j], indexing the stored layouts directly.
std::vector<float> NaiveProduct(const Workload& w, const std::vector<float>& x, const std::vector<float>& y) {
  const int64_t batch = w.Dim("b"), m = w.Dim("m"), n = w.Dim("n"), k = w.Dim("k");
  const bool ta = w.Dim("transpose_a"), tb = w.Dim("transpose_b");
  std::vector<float> z(batch * m * n, 0.0f);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t l = 0; l < k; ++l)
          z[(b * m + i) * n + j] +=
              x[b * m * k + (ta ? l * m + i : i * k + l)] * y[b * k * n + (tb ? j * k + l : l * n + j)];
  return z;
}

TEST(BatchMatmulReference, MatchesNaiveProductForEveryTransposition) {
  for (const auto& flags :
       std::vector<std::vector<std::string>>{{}, {"transpose_a"}, {"transpose_b"}, {"transpose_a", "transpose_b"}}) {
    const Workload w = ParseWorkload("batch_matmul", "3,5,7,3", flags);
    const auto buffers = Bmm().Buffers(w);
    ASSERT_EQ(buffers.size(), 3u);
    std::vector<float> x(buffers[0].elements), y(buffers[1].elements), z(buffers[2].elements, -1.0f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
    for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6);
    Bmm().Reference(w, {x.data(), y.data()}, z.data());
    EXPECT_EQ(z, NaiveProduct(w, x, y)) << w.Key();
  }
}

}  // namespace
}  // namespace tt
