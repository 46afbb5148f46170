#include "ocl/context.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/errors.h"

namespace tt {
namespace {

constexpr const char* kTripleSource = R"(
__kernel void triple(__global const float* in, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = FACTOR * in[i];
})";

class ContextTest : public ::testing::Test {
 protected:
  ocl::Context context{ocl::SelectDevice("0")};
};

TEST_F(ContextTest, BuildFailureReturnsTheLog) {
  const ocl::BuildResult build = context.Build("__kernel void k(__global float* x) { x[0] = no_such_name; }", "");
  EXPECT_FALSE(build.ok());
  EXPECT_NE(build.log.find("no_such_name"), std::string::npos) << build.log;
}

TEST_F(ContextTest, RunsATinyKernelAndTimesIt) {
  const ocl::BuildResult build = context.Build(kTripleSource, "-D FACTOR=3.0f");
  ASSERT_TRUE(build.ok()) << build.log;
  ocl::Kernel kernel = build.program->CreateKernel("triple");
  const std::vector<float> input{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> output(input.size(), 0);
  const ocl::FloatBuffer in = context.CreateBuffer(input.size());
  const ocl::FloatBuffer out = context.CreateBuffer(output.size());
  context.Write(in, input);
  kernel.SetArg(0, in);
  kernel.SetArg(1, out);
  const double seconds = context.Launch(kernel, 1, {input.size(), 1, 1}, {4, 1, 1});
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 10);
  context.Read(out, output);
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(output[i], 3 * input[i]);
  EXPECT_GT(context.Launch(kernel, 1, {input.size(), 1, 1}, {0, 0, 0}), 0);  // driver-chosen local size
}

// Two "triple" kernels in a chain, as a sketch's pre-pass and main kernel: in -> middle -> out.
struct TripleChain {
  TripleChain(const ocl::Context& context, const std::vector<float>& input)
      : build(context.Build(kTripleSource, "-D FACTOR=3.0f")),
        in(context.CreateBuffer(input.size())),
        middle(context.CreateBuffer(input.size())),
        out(context.CreateBuffer(input.size())),
        first(build.program.value().CreateKernel("triple")),  // value(): a failed build throws
        second(build.program.value().CreateKernel("triple")) {
    context.Write(in, input);
    context.Write(middle, std::vector<float>(input.size(), 0));
    first.SetArg(0, in);
    first.SetArg(1, middle);
    second.SetArg(0, middle);
    second.SetArg(1, out);
  }
  ocl::BuildResult build;
  ocl::FloatBuffer in, middle, out;
  ocl::Kernel first, second;
};

// The second kernel reads what the first wrote; one time for both.
TEST_F(ContextTest, RunsKernelsInOrderAndTimesThemTogether) {
  const std::vector<float> input{1, 2, 3, 4, 5, 6, 7, 8};
  TripleChain chain(context, input);
  const std::vector<ocl::KernelRun> runs{{&chain.first, 1, {input.size(), 1, 1}, {4, 1, 1}},
                                         {&chain.second, 1, {input.size(), 1, 1}, {0, 0, 0}}};
  std::vector<float> output(input.size());
  for (int repeat = 0; repeat < 3; ++repeat) {
    std::fill(output.begin(), output.end(), 0.0f);
    context.Write(chain.out, output);
    const double seconds = context.LaunchInOrder(runs);
    EXPECT_GT(seconds, 0);
    EXPECT_LT(seconds, 10);
    context.Read(chain.out, output);
    for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(output[i], 9 * input[i]);
  }
  EXPECT_THROW(context.LaunchInOrder({}), std::invalid_argument);
}

// The kernels before the one that cannot start still run (the queue is in order).
TEST_F(ContextTest, ALaunchInOrderThatCannotStartThrows) {
  const std::vector<float> input(12, 2.0f);
  TripleChain chain(context, input);
  const std::vector<ocl::KernelRun> runs{{&chain.first, 1, {input.size(), 1, 1}, {4, 1, 1}},
                                         {&chain.second, 1, {input.size(), 1, 1}, {5, 1, 1}}};  // 5 does not divide 12
  EXPECT_THROW(context.LaunchInOrder(runs), EnvironmentError);
  std::vector<float> middle(input.size());
  context.Read(chain.middle, middle);
  for (float v : middle) EXPECT_EQ(v, 6.0f);
}

TEST_F(ContextTest, OpenClErrorsNameTheError) {
  const ocl::BuildResult build = context.Build(kTripleSource, "-D FACTOR=3.0f");
  ASSERT_TRUE(build.ok()) << build.log;
  try {
    build.program->CreateKernel("no_such_kernel");
    FAIL() << "created a kernel that does not exist";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_INVALID_KERNEL_NAME"), std::string::npos) << e.what();
  }
  ocl::Kernel kernel = build.program->CreateKernel("triple");
  const ocl::FloatBuffer buffer = context.CreateBuffer(10);
  kernel.SetArg(0, buffer);
  kernel.SetArg(1, buffer);
  EXPECT_THROW(context.Launch(kernel, 1, {10, 1, 1}, {3, 1, 1}), EnvironmentError);  // 3 does not divide 10
}

}  // namespace
}  // namespace tt
