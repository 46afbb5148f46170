// tensortune::NetworkRunner on the default OpenCL device: a small network of two chained GEMMs
// run from a history and from a kernel pack, its outputs against a product computed here, its
// layers timed; a pack that lacks a layer is adapted (labelled) or refused; bad inputs and
// devices are clear errors.
#include "runtime/runtime_internal.h"
#include "runtime_test_support.h"
#include "tensortune/history.h"
#include "tensortune/network.h"

namespace tt {
namespace {

using tensortune::ErrorCode;
using tensortune::Origin;
using testing::ClEnvironment, testing::ScratchDir;

// fc1: (8 x 12) x (12 x 16); fc2 reads fc1's 8 x 16 output: (8 x 16) x (16 x 20).
const tensortune::Workload kFc1{"gemm", "8,16,12", {}};
const tensortune::Workload kFc2{"gemm", "8,20,16", {}};

// An exact record of each workload on this device, of the plain-layout gemm sketch.
void RecordBoth(const ClEnvironment& cl, const ScratchDir& dir) {
  for (const auto& pub : {kFc1, kFc2}) {
    const Workload w = testing::Parse(pub);
    testing::Record(
        testing::Db(dir), w, "gemm_tiled",
        testing::FindConfig(w, "gemm_tiled", cl.info(), [](const ConfigSpace&, const Config&) { return true; }),
        cl.info());
  }
}

// Row-major m x k times k x n.
std::vector<float> Product(const std::vector<float>& a, const std::vector<float>& b, size_t m, size_t k, size_t n) {
  std::vector<float> c(m * n, 0.0f);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

std::vector<tensortune::NetworkLayer> Network(const std::vector<float>& a, const std::vector<float>& b1,
                                              const std::vector<float>& b2) {
  return {{"fc1", kFc1, {a, b1}}, {"fc2", kFc2, {{}, b2}}};
}

tensortune::NetworkRunOptions Quick() {
  tensortune::NetworkRunOptions o;
  o.min_runs = 2;
  o.min_time_s = 0;
  o.keep_outputs = true;
  return o;
}

TEST(NetworkRunner, RunsChainedLayersOnTheGivenInputsChecksAndTimesEach) {
  ClEnvironment cl;
  ScratchDir dir;
  RecordBoth(cl, dir);
  const auto a = testing::SmallIntegers(8 * 12, 1), b1 = testing::SmallIntegers(12 * 16, 2),
             b2 = testing::SmallIntegers(16 * 20, 3);
  const tensortune::NetworkRunner runner("0");
  const auto history = tensortune::OpenHistory(testing::Db(dir));
  const tensortune::NetworkRun run = runner.Run(Network(a, b1, b2), *history, Quick());

  ASSERT_EQ(run.layers.size(), 2u);
  EXPECT_TRUE(run.verified);
  EXPECT_EQ(run.device.name, cl.info().name);
  const auto fc1 = Product(a, b1, 8, 12, 16);
  testing::ExpectSame(run.layers[0].output, fc1);
  testing::ExpectSame(run.layers[1].output, Product(fc1, b2, 8, 16, 20));
  EXPECT_FALSE(run.layers[0].chained);
  EXPECT_TRUE(run.layers[1].chained) << "fc2 reads fc1's output";
  EXPECT_EQ(run.layers[1].output_dims, (std::vector<int64_t>{8, 20}));
  for (const auto& layer : run.layers) {
    EXPECT_EQ(layer.check, "ok") << layer.name;
    EXPECT_EQ(layer.choice.origin, Origin::kExact) << layer.name;
    EXPECT_EQ(layer.choice.kernel_template, "gemm_tiled");
    EXPECT_GT(layer.measured_time_s, 0) << layer.name << " has no time";
    EXPECT_EQ(layer.alone_time_s, 0) << layer.name << ": timed alone only when asked";
  }
  EXPECT_GE(run.runs, 2u);
  EXPECT_GT(run.measured_latency_s, 0);
  EXPECT_GT(run.kernels_latency_s, 0);
  EXPECT_EQ(run.conversions, 0);
  EXPECT_EQ(run.cache.built, 2u) << "one program per distinct kernel";

  tensortune::NetworkRunOptions alone = Quick();
  alone.alone_min_time_s = 0.01;
  for (const auto& layer : runner.Run(Network(a, b1, b2), *history, alone).layers)
    EXPECT_GT(layer.alone_time_s, 0) << layer.name << " was not timed alone";
}

TEST(NetworkRunner, APackThatLacksALayerAdaptsItLabelledOrRefusesIt) {
  ClEnvironment cl;
  ScratchDir dir;
  RecordBoth(cl, dir);
  const auto self = runtime::ToDescription(cl.info());
  {
    const auto history = tensortune::OpenHistory(testing::Db(dir));
    runtime::WritePack((dir.path() / "pack").string(), self, "fc", 1,
                       {{tensortune::Choose(kFc1, *history, self), {"fc1"}, 1}});
  }
  const tensortune::KernelPack pack = tensortune::KernelPack::Load((dir.path() / "pack").string());
  const auto a = testing::SmallIntegers(8 * 12, 4), b1 = testing::SmallIntegers(12 * 16, 5),
             b2 = testing::SmallIntegers(16 * 20, 6);
  const tensortune::NetworkRunner runner("0");

  tensortune::NetworkRunOptions strict = Quick();
  strict.prepare.least_trusted = Origin::kExact;
  EXPECT_EQ(testing::CodeOf([&] { runner.Run(Network(a, b1, b2), pack, strict); }), ErrorCode::kMissingWorkload);

  const tensortune::NetworkRun run = runner.Run(Network(a, b1, b2), pack, Quick());
  EXPECT_TRUE(run.verified);
  EXPECT_EQ(run.layers[0].choice.origin, Origin::kExact);
  EXPECT_NE(run.layers[1].choice.origin, Origin::kExact) << "fc2 is not in the pack";
  EXPECT_EQ(run.layers[1].check, "ok");
  testing::ExpectSame(run.layers[1].output, Product(Product(a, b1, 8, 12, 16), b2, 8, 16, 20));
}

TEST(NetworkRunner, InputsOfTheWrongSizeAnUnknownDeviceAndNoLayersAreRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  RecordBoth(cl, dir);
  const auto history = tensortune::OpenHistory(testing::Db(dir));
  const tensortune::NetworkRunner runner("0");
  const auto b1 = testing::SmallIntegers(12 * 16, 2), b2 = testing::SmallIntegers(16 * 20, 3);
  try {
    runner.Run(Network(std::vector<float>(7, 1.0f), b1, b2), *history, Quick());
    ADD_FAILURE() << "a 7-value input of an 8 x 12 matrix was taken";
  } catch (const tensortune::Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("layer fc1: input 0 (A) has 7 values, its shape needs 96"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(testing::CodeOf([&] { runner.Run({}, *history, Quick()); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(testing::CodeOf([] { tensortune::NetworkRunner("no-such-device-anywhere"); }), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tt
