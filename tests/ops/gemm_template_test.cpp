#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/errors.h"
#include "ops/kernel_template.h"
#include "ops/matmul_templates.h"
#include "ops/template_test_util.h"

namespace tt {
namespace {

using testing::Pick;

const DeviceLimits kCpuLimits{4096, 512 * 1024};

TEST(ParseWorkload, GemmTakesThreePositiveIntegers) {
  const Workload w = ParseWorkload("gemm", "512,1024,768");
  EXPECT_EQ(w.Key(), "gemm:m=512,n=1024,k=768");
  EXPECT_EQ(w.Dim("k"), 768);
}

TEST(ParseWorkload, RejectsMalformedShapesWithOneClearMessage) {
  for (const char* bad : {"", "512", "512,1024", "512,1024,1024,3", "512,x,1", "0,1,1", "-1,2,3", "1,,2", "1,2,3,",
                          "1.5,2,3", "99999999,99999999,1"}) {
    try {
      ParseWorkload("gemm", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("shape"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseWorkload, RejectsUnknownOperatorNamingIt) {
  try {
    ParseWorkload("gemmm", "1,2,3");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown operator 'gemmm'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gemm"), std::string::npos);
  }
}

TEST(Registry, ListsGemmButNotTestOnlyTemplates) {
  ASSERT_NE(FindTemplate("gemm_tiled"), nullptr);
  std::set<std::string> names;
  for (const auto& op : Operators()) names.insert(op.name);
  EXPECT_TRUE(names.count("gemm"));
  EXPECT_FALSE(names.count("selftest"));
  EXPECT_NE(GemmTiledTemplate().SourceHash(), "");
}

TEST(GemmSpace, HasAutoTvmDenseKnobs) {
  const ConfigSpace space = GemmTiledTemplate().Space(ParseWorkload("gemm", "64,48,32"), kCpuLimits);
  EXPECT_EQ(space.knob(space.KnobIndex("tile_x")).value(0).size(), 4u);
  EXPECT_EQ(space.knob(space.KnobIndex("tile_y")).value(0).size(), 4u);
  EXPECT_EQ(space.knob(space.KnobIndex("tile_k")).value(0).size(), 3u);
  EXPECT_EQ(space.knob(space.KnobIndex("tile_x")).size(), 84u);  // ordered 4-factorizations of 2^6
  EXPECT_NO_THROW(space.KnobIndex("auto_unroll_max_step"));
  EXPECT_NO_THROW(space.KnobIndex("vec"));
  EXPECT_NO_THROW(space.KnobIndex("pack_b"));
}

TEST(GemmSpace, VectorWidthsGoUpToTheDevicesNativeWidth) {
  const Workload w = ParseWorkload("gemm", "64,64,64");
  const auto widths = [&](unsigned native) {
    const ConfigSpace space = GemmTiledTemplate().Space(w, {1024, 64 * 1024, native});
    const Knob& vec = space.knob(space.KnobIndex("vec"));
    std::vector<int64_t> values;
    for (size_t i = 0; i < vec.size(); ++i) values.push_back(vec.value(i)[0]);
    return values;
  };
  EXPECT_EQ(widths(16), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(widths(8), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(widths(4), (std::vector<int64_t>{1, 2, 4}));
}

TEST(GemmSpace, DeviceLimitsAndTemplateRulesInvalidateBeforeCompiling) {
  const Workload w = ParseWorkload("gemm", "256,256,64");
  const ConfigSpace space = GemmTiledTemplate().Space(w, {256, 16 * 1024});
  const Config fine = Pick(space, {{"tile_x", {16, 1, 16, 1}}, {"tile_y", {16, 1, 16, 1}}, {"tile_k", {64, 1, 1}}});
  EXPECT_TRUE(space.IsValid(fine)) << *space.WhyInvalid(fine);

  const Config big_group = Pick(space, {{"tile_x", {8, 1, 32, 1}}, {"tile_y", {16, 1, 16, 1}}});
  EXPECT_NE(space.WhyInvalid(big_group).value_or("").find("work-group size 512"), std::string::npos);

  const Config big_local = Pick(space, {{"tile_x", {1, 16, 16, 1}},
                                        {"tile_y", {1, 16, 16, 1}},
                                        {"tile_k", {1, 64, 1}},
                                        {"local_a", {1}},
                                        {"local_b", {1}}});
  EXPECT_NE(space.WhyInvalid(big_local).value_or("").find("local memory"), std::string::npos);

  const Config bad_vector = Pick(space, {{"tile_x", {16, 1, 16, 1}}, {"tile_y", {16, 1, 8, 2}}, {"vec", {4}}});
  EXPECT_NE(space.WhyInvalid(bad_vector).value_or("").find("vec 4"), std::string::npos);

  const Config staged_twice = Pick(space, {{"tile_x", {16, 1, 16, 1}},
                                           {"tile_y", {16, 1, 16, 1}},
                                           {"tile_k", {64, 1, 1}},
                                           {"local_b", {1}},
                                           {"pack_b", {1}}});
  EXPECT_NE(space.WhyInvalid(staged_twice).value_or("").find("pack_b and local_b"), std::string::npos);
}

// pack_b runs a pre-pass writing one panel of tile_n columns for every k per column of
// work-groups (the last one padded: 100 is rounded up to 112 here), read in B's place.
TEST(GemmPrePass, PacksOnePanelOfBPerColumnOfWorkGroups) {
  const Workload w = ParseWorkload("gemm", "64,100,48");
  const ConfigSpace space = GemmTiledTemplate().Space(w, kCpuLimits);
  const std::map<std::string, KnobValue> tiles = {
      {"tile_x", {4, 2, 4, 2}}, {"tile_y", {7, 1, 2, 8}}, {"tile_k", {6, 4, 2}}};
  EXPECT_FALSE(GemmTiledTemplate().PrePassOf(w, space, Pick(space, tiles)));

  auto packed = tiles;
  packed["pack_b"] = {1};
  const Config c = Pick(space, packed);
  ASSERT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  const auto pass = GemmTiledTemplate().PrePassOf(w, space, c);
  ASSERT_TRUE(pass);
  EXPECT_EQ(pass->kernel_name, "pack_b");
  EXPECT_EQ(pass->input, 1u);  // B
  EXPECT_EQ(pass->scratch_elements, 7u * 48 * 16);
  EXPECT_EQ(pass->geometry.global, (std::array<size_t, 3>{7 * 48, 1, 1}));  // a work-item per panel row
  EXPECT_EQ(pass->geometry.local, (std::array<size_t, 3>{56, 1, 1}));       // 336's largest divisor up to 64
  EXPECT_NE(GemmTiledTemplate().BuildOptions(w, space, c).find("-D PACK_B=1"), std::string::npos);
}

// Replays the kernel's index arithmetic: every element of C must be written by exactly one
// work-item (stores past M or N are masked), for every valid config of a small space. Returns
// the configs checked and, of them, those with a partial last tile.
std::pair<size_t, size_t> ExpectEveryValidConfigCoversEachOutputOnce(int64_t m, int64_t n, int64_t k) {
  const Workload w = ParseWorkload("gemm", std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k));
  const KernelTemplate& t = GemmTiledTemplate();
  const ConfigSpace space = t.Space(w, kCpuLimits);
  size_t checked = 0, with_tails = 0;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config c = space.FromIndex(i);
    if (!space.IsValid(c) || space.Scalar(c, "local_a") || space.Scalar(c, "auto_unroll_max_step")) continue;
    const KnobValue x = space.Value(c, "tile_x"), y = space.Value(c, "tile_y");
    const LaunchGeometry g = t.Geometry(w, space, c);
    std::vector<int> writes(m * n, 0);
    for (size_t gx = 0; gx < g.global[0]; ++gx)
      for (size_t gy = 0; gy < g.global[1]; ++gy) {
        const int64_t ln = gx % g.local[0], lm = gy % g.local[1];
        const int64_t n0 = gx / g.local[0] * y[1] * y[2] * y[3], m0 = gy / g.local[1] * x[1] * x[2] * x[3];
        for (int64_t i1 = 0; i1 < x[1]; ++i1)
          for (int64_t i3 = 0; i3 < x[3]; ++i3)
            for (int64_t j1 = 0; j1 < y[1]; ++j1)
              for (int64_t j3 = 0; j3 < y[3]; ++j3) {
                const int64_t r = m0 + i1 * x[2] * x[3] + lm * x[3] + i3, col = n0 + j1 * y[2] * y[3] + ln * y[3] + j3;
                if (r < m && col < n) ++writes[r * n + col];
              }
      }
    if (std::count(writes.begin(), writes.end(), 1) != m * n) {
      ADD_FAILURE() << "not every output written once: " << space.Key(c);
      return {checked, with_tails};
    }
    ++checked;
    with_tails += x[0] * x[1] * x[2] * x[3] != m || y[0] * y[1] * y[2] * y[3] != n;
  }
  return {checked, with_tails};
}

TEST(GemmGeometry, EveryValidConfigCoversEachOutputOnce) {
  const auto [checked, with_tails] = ExpectEveryValidConfigCoversEachOutputOnce(12, 20, 6);
  EXPECT_GT(checked, 1000u);
  EXPECT_EQ(with_tails, 0u);  // rounding 12 or 20 up to 16 or 32 would add more than a quarter
}

TEST(GemmGeometry, ConfigsWithPartialLastTilesCoverEachOutputOnce) {
  const auto [checked, with_tails] = ExpectEveryValidConfigCoversEachOutputOnce(13, 29, 6);
  EXPECT_GT(with_tails, 1000u);
  EXPECT_GT(checked, with_tails);
}

// 1021 and 1019 are prime: exact splits give tiles of 1 or the whole extent; the rounded
// extents give 1023 x 1021 x 1019 the tile shapes of 1024^3.
TEST(GemmSpace, OddSizesGetTheTileShapesOfTheirRoundNeighbours) {
  const Workload odd = ParseWorkload("gemm", "1023,1021,1019");
  const ConfigSpace space = GemmTiledTemplate().Space(odd, kCpuLimits);
  const std::map<std::string, KnobValue> large = {
      {"tile_x", {32, 1, 8, 4}}, {"tile_y", {16, 1, 4, 16}}, {"tile_k", {128, 4, 2}}, {"vec", {16}}, {"local_b", {1}}};
  const Config c = Pick(space, large);
  EXPECT_TRUE(space.IsValid(c)) << *space.WhyInvalid(c);
  EXPECT_EQ(space.Value(c, "tile_y")[1] * space.Value(c, "tile_y")[2] * space.Value(c, "tile_y")[3], 64);

  // Every tile shape 1024^3 offers along N is offered here, and the exact splits stay.
  const ConfigSpace round = GemmTiledTemplate().Space(ParseWorkload("gemm", "1024,1024,1024"), kCpuLimits);
  const Knob& round_y = round.knob(round.KnobIndex("tile_y"));
  const Knob& odd_y = space.knob(space.KnobIndex("tile_y"));
  size_t shared = 0;
  for (size_t i = 0; i < round_y.size(); ++i) shared += odd_y.Find(round_y.value(i)).has_value();
  EXPECT_EQ(shared, round_y.size() - 4);  // all but the 4 with tiles of 1 or 2 (past 3 padded columns)
  EXPECT_TRUE(odd_y.Find({1021, 1, 1, 1}));
  EXPECT_TRUE(odd_y.Find({1, 1, 1, 1021}));
}

TEST(GemmBuildOptions, DefineTailsOnlyForSplitsWithAPartialLastTile) {
  const Workload w = ParseWorkload("gemm", "60,64,29");
  const ConfigSpace space = GemmTiledTemplate().Space(w, kCpuLimits);
  const auto options = [&](const std::map<std::string, KnobValue>& values) {
    return GemmTiledTemplate().BuildOptions(w, space, Pick(space, values));
  };
  const std::string exact = options({{"tile_x", {15, 1, 4, 1}}, {"tile_y", {4, 1, 4, 4}}, {"tile_k", {29, 1, 1}}});
  EXPECT_EQ(exact.find("TAIL"), std::string::npos) << exact;
  const std::string tails = options({{"tile_x", {4, 1, 4, 4}}, {"tile_y", {4, 1, 4, 4}}, {"tile_k", {4, 4, 2}}});
  EXPECT_NE(tails.find("-D TAIL_M=1"), std::string::npos) << tails;
  EXPECT_EQ(tails.find("TAIL_N"), std::string::npos) << tails;
  EXPECT_NE(tails.find("-D TAIL_K=1"), std::string::npos) << tails;
}

TEST(GemmBuildOptions, CarryEveryKnob) {
  const Workload w = ParseWorkload("gemm", "64,64,64");
  const ConfigSpace space = GemmTiledTemplate().Space(w, kCpuLimits);
  const Config c = Pick(space, {{"tile_x", {2, 2, 4, 4}},
                                {"tile_y", {1, 2, 4, 8}},
                                {"tile_k", {4, 2, 8}},
                                {"vec", {4}},
                                {"auto_unroll_max_step", {16}},
                                {"local_b", {1}}});
  const std::string options = GemmTiledTemplate().BuildOptions(w, space, c);
  for (const char* expected : {"-D M=64", "-D TX0=2", "-D TX3=4", "-D TY3=8", "-D TK2=8", "-D VEC=4", "-D UNROLL_K=1",
                               "-D LOCAL_A=0", "-D LOCAL_B=1", "-D PACK_B=0"})
    EXPECT_NE(options.find(expected), std::string::npos) << expected << " in " << options;
}

TEST(GemmReference, MatchesNaiveProduct) {
  const Workload w = ParseWorkload("gemm", "3,2,4");
  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<float> b = {1, 0, 0, 1, 1, 1, 2, -1};
  std::vector<float> c(6);
  GemmTiledTemplate().Reference(w, {a.data(), b.data()}, c.data());
  EXPECT_EQ(c, (std::vector<float>{12, 1, 28, 5, 44, 9}));
}

// The row sketch: only for a few rows, a register file of accumulators, no idle work-groups.
TEST(GemmRowsSpace, AFewRowsOnlyAndRulesNameWhatIsWrong) {
  const KernelTemplate& rows = GemmRowsTemplate();
  EXPECT_FALSE(rows.WhyNotApplicable(ParseWorkload("gemm", "8,1000,512")));
  const auto why = rows.WhyNotApplicable(ParseWorkload("gemm", "9,1000,512"));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("at most 8 rows"), std::string::npos) << *why;

  const Workload w = ParseWorkload("gemm", "8,40,24");
  const ConfigSpace space = rows.Space(w, kCpuLimits);
  EXPECT_EQ(space.knob(space.KnobIndex("unroll_k")).size(), 4u);  // 1, 2, 4, 8 divide 24; 16 does not
  const Config many = Pick(space, {{"vec", {4}}, {"nv", {8}}, {"unroll_k", {1}}, {"work_group", {1}}});
  EXPECT_NE(space.WhyInvalid(many).value_or("").find("32 vectors"), std::string::npos);  // 8 rows x 8 vectors
  const Config idle = Pick(space, {{"vec", {4}}, {"nv", {2}}, {"unroll_k", {1}}, {"work_group", {8}}});
  EXPECT_NE(space.WhyInvalid(idle).value_or("").find("work-items"), std::string::npos);  // 5 work-items of 8 columns
  EXPECT_FALSE(space.WhyInvalid(Pick(space, {{"vec", {4}}, {"nv", {2}}, {"unroll_k", {8}}, {"work_group", {4}}})));
}

// Every column of C belongs to exactly one work-item of the NDRange, whatever the config.
TEST(GemmRowsGeometry, EveryValidConfigCoversEachColumnOnce) {
  const KernelTemplate& rows = GemmRowsTemplate();
  const Workload w = ParseWorkload("gemm", "2,1000,64");
  const ConfigSpace space = rows.Space(w, kCpuLimits);
  size_t checked = 0;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const Config c = space.FromIndex(i);
    if (!space.IsValid(c)) continue;
    const LaunchGeometry g = rows.Geometry(w, space, c);
    const int64_t columns = space.Scalar(c, "vec") * space.Scalar(c, "nv");
    ASSERT_EQ(g.local[0], static_cast<size_t>(space.Scalar(c, "work_group")));
    ASSERT_EQ(g.global[0] % g.local[0], 0u);
    std::vector<int> writes(1000, 0);
    for (size_t item = 0; item < g.global[0]; ++item)
      for (int64_t j = 0; j < columns; ++j)
        if (item * columns + j < 1000) ++writes[item * columns + j];
    ASSERT_EQ(std::count(writes.begin(), writes.end(), 1), 1000) << space.Key(c);
    ASSERT_LT((g.global[0] - g.local[0]) * columns, 1000u) << space.Key(c);  // no group wholly idle
    ++checked;
  }
  EXPECT_GT(checked, 50u);
}

}  // namespace
}  // namespace tt
