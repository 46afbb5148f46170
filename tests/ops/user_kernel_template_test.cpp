// A user's kernel as a template: Kernel Tuner's restrictions, grid divisors, block sizes and
// defines, and the spec's refusals.
#include "ops/user_kernel_template.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"

namespace tt {
namespace {

TEST(Restriction, EvaluatesPythonExpressionsOverParameters) {
  const std::vector<std::string> names = {"bx", "by", "tile"};
  EXPECT_TRUE(Restriction("bx==by*tile", names).Holds({32, 8, 4}));
  EXPECT_FALSE(Restriction("bx==by*tile", names).Holds({32, 8, 2}));
  EXPECT_TRUE(Restriction("bx*by <= 1024 and tile > 1", names).Holds({32, 32, 2}));
  EXPECT_FALSE(Restriction("bx*by <= 1024 and tile > 1", names).Holds({64, 32, 2}));
  EXPECT_TRUE(Restriction("not (tile == 1) or bx % 64 == 0", names).Holds({64, 1, 1}));
  EXPECT_TRUE(Restriction("8 <= bx < 64", names).Holds({32, 1, 1}));  // chained, as in Python
  EXPECT_FALSE(Restriction("8 <= bx < 64", names).Holds({64, 1, 1}));
  EXPECT_DOUBLE_EQ(Restriction("bx // 3 + 2 ** tile", names).Evaluate({10, 0, 3}), 11);
  EXPECT_DOUBLE_EQ(Restriction("-bx % 3", names).Evaluate({10, 0, 0}), 2);  // Python's sign
  EXPECT_TRUE(Restriction("bx>1 && True", names).Holds({2, 0, 0}));
}

TEST(Restriction, RefusesUnknownNamesAndBadSyntax) {
  EXPECT_THROW(Restriction("bz > 1", {"bx"}), UserError);
  EXPECT_THROW(Restriction("bx >", {"bx"}), UserError);
  EXPECT_THROW(Restriction("(bx > 1", {"bx"}), UserError);
  EXPECT_THROW(Restriction("bx > 1 1", {"bx"}), UserError);
}

constexpr const char* kMatmulSpec = R"({
  "kernel_name": "matmul_kernel",
  "kernel_source": "__kernel void matmul_kernel(__global float* C, __global const float* A, __global const float* B) {}",
  "problem_size": [512, 256],
  "arguments": [{"type": "float32", "size": 131072}, {"type": "float32", "size": 131072, "data": "random"},
                {"type": "float", "size": 131072, "data": "random"}],
  "tune_params": {"block_size_x": [16, 32, 64], "block_size_y": [1, 2, 4, 8, 16], "tile_size_x": [1, 2, 4],
                  "tile_size_y": [1, 2, 4]},
  "grid_div_x": ["block_size_x", "tile_size_x"],
  "grid_div_y": ["block_size_y", "tile_size_y"],
  "restrictions": ["block_size_x==block_size_y*tile_size_y"]
})";

Config ConfigOf(const ConfigSpace& space, const std::vector<int64_t>& values) {
  Config c;
  for (size_t i = 0; i < values.size(); ++i) c.push_back(*space.knob(i).Find({values[i]}));
  return c;
}

TEST(UserKernelTemplate, FollowsKernelTunersGridAndDefines) {
  const UserKernelTemplate kernel(ParseUserKernelSpec(kMatmulSpec, "/"));
  const Workload w = kernel.ProblemWorkload();
  EXPECT_EQ(w.Key(), "kernel_tuner:p0=512,p1=256");
  const ConfigSpace space = kernel.Space(w, {256, 1 << 16, 0});
  const Config c = ConfigOf(space, {32, 8, 2, 4});
  ASSERT_TRUE(space.IsValid(c));
  const LaunchGeometry g = kernel.Geometry(w, space, c);
  // x: ceil(512 / (32*2)) = 8 blocks of 32; y: ceil(256 / (8*4)) = 8 blocks of 8.
  EXPECT_EQ(g.global[0], 256u);
  EXPECT_EQ(g.global[1], 64u);
  EXPECT_EQ(g.global[2], 1u);
  EXPECT_EQ(g.local[0], 32u);
  EXPECT_EQ(g.local[1], 8u);
  EXPECT_EQ(g.local[2], 1u);
  const std::string options = kernel.BuildOptions(w, space, c);
  for (const char* define : {"-Dblock_size_x=32", "-Dblock_size_y=8", "-Dtile_size_x=2", "-Dtile_size_y=4",
                             "-Dblock_size_z=1", "-Dgrid_size_x=8", "-Dgrid_size_y=8", "-Dkernel_tuner=1"})
    EXPECT_NE(options.find(define), std::string::npos) << define << " in " << options;
  // The restriction and the device's work-group limit.
  EXPECT_FALSE(space.IsValid(ConfigOf(space, {32, 8, 2, 2})));
  EXPECT_FALSE(space.IsValid(ConfigOf(space, {64, 16, 1, 4})));  // 1024 threads > 256
  // block_size_x = block_size_y * tile_size_y within 256 threads: 16 = 16x1, 8x2, 4x4; 32 = 8x4
  // (16x2 and 64 = 16x4 are too many threads); times three tile_size_x.
  EXPECT_EQ(*CountValidConfigs(space), 4u * 3u);
}

TEST(UserKernelTemplate, IdentityIgnoresProblemSizeAndRestrictions) {
  std::string other = kMatmulSpec;
  other.replace(other.find("[512, 256]"), 10, "[1024, 512]");
  other.replace(other.find("block_size_x==block_size_y*tile_size_y"), 38, "block_size_x>=block_size_y");
  const UserKernelTemplate a(ParseUserKernelSpec(kMatmulSpec, "/")), b(ParseUserKernelSpec(other, "/"));
  EXPECT_EQ(a.IdentityHash(), b.IdentityHash());
  EXPECT_NE(a.ProblemWorkload().Key(), b.ProblemWorkload().Key());
  std::string changed = kMatmulSpec;
  changed.replace(changed.find("{}"), 2, "{ }");
  EXPECT_NE(a.IdentityHash(), UserKernelTemplate(ParseUserKernelSpec(changed, "/")).IdentityHash());
}

TEST(UserKernelSpec, RefusesWhatItCannotUse) {
  const auto refused = [](const std::string& json, const std::string& message) {
    try {
      UserKernelTemplate kernel(ParseUserKernelSpec(json, "/"));
      ADD_FAILURE() << "accepted: " << json;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  const std::string head = R"({"kernel_name": "k", "kernel_source": "x", "problem_size": 10, )";
  refused(head + R"("arguments": [{"type": "complex64", "size": 4}], "tune_params": {"a": [1]}})", "complex64");
  refused(head + R"("arguments": [{"type": "int32", "value": 4}], "tune_params": {}})", "tune_params");
  refused(head + R"("arguments": [{"type": "int32", "value": 4}], "tune_params": {"a": [1, 1]}})", "twice");
  refused(head + R"("arguments": [{"type": "int32", "size": 4, "data": "missing.bin"}], "tune_params": {"a": [1]}})",
          "missing.bin");
  refused(head + R"("arguments": [{"type": "int32", "size": 2, "data": [1, 2, 3]}], "tune_params": {"a": [1]}})",
          "3 values for 2");
  refused(head + R"("arguments": [{"type": "int32", "value": 4}], "tune_params": {"a": [1]}, "restrictions": "b>1"})",
          "'b' is not a tunable parameter");
  refused(R"({"kernel_source": "x", "problem_size": 10})", "kernel_name");
  refused("[1, 2", "not valid JSON");
}

TEST(UserKernelSpec, ArgumentBytesFollowTheirType) {
  UserKernelArg arg;
  arg.type = "int16";
  arg.element_bytes = 2;
  arg.elements = 3;
  UserKernelData values{UserKernelData::Kind::kValues, "", {1, -2, 300}};
  const auto bytes = ArgumentBytes(arg, values, 1);
  ASSERT_EQ(bytes.size(), 6u);
  EXPECT_EQ(ElementAt("int16", bytes.data(), 1), -2);
  EXPECT_EQ(ElementAt("int16", bytes.data(), 2), 300);
  arg.scalar = true;
  arg.type = "float64";
  arg.element_bytes = 8;
  arg.value = 0.25;
  EXPECT_EQ(ElementAt("float64", ScalarBytes(arg).data(), 0), 0.25);
}

}  // namespace
}  // namespace tt
