// The layers the tuner is for are accepted: every conv layer of AlexNet and ResNet-18, the
// depthwise layers of MobileNet-v1, and the OpEvo paper's MM1-3, BMM1-3, C1 and C2, each with
// at least one valid config per applicable template under a CPU device's limits.
#include <gtest/gtest.h>

#include "core/rng.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

struct Layer {
  const char* op;
  const char* shape;
  std::vector<std::string> flags = {};
};

bool HasValidConfig(const ConfigSpace& space) {
  Rng rng(5);
  for (int i = 0; i < 100000; ++i)
    if (space.IsValid(space.Random(rng))) return true;
  return false;
}

class NetworkShapes : public ::testing::TestWithParam<Layer> {};

TEST_P(NetworkShapes, ParseAndEveryApplicableTemplateHasValidConfigs) {
  const Workload w = ParseWorkload(GetParam().op, GetParam().shape, GetParam().flags);
  const auto templates = ApplicableTemplates(w);
  ASSERT_FALSE(templates.empty());
  for (const KernelTemplate* t : templates)
    EXPECT_TRUE(HasValidConfig(t->Space(w, {4096, 512 * 1024}))) << t->name() << " " << w.Key();
}

std::string Conv(int n, int ci, int hw, int co, int k, int stride, int pad) {
  return "n=" + std::to_string(n) + ",ci=" + std::to_string(ci) + ",h=" + std::to_string(hw) +
         ",w=" + std::to_string(hw) + ",co=" + std::to_string(co) + ",kh=" + std::to_string(k) +
         ",kw=" + std::to_string(k) + ",stride=" + std::to_string(stride) + ",pad=" + std::to_string(pad);
}

std::string Depthwise(int c, int hw, int stride) {
  return "n=1,c=" + std::to_string(c) + ",h=" + std::to_string(hw) + ",w=" + std::to_string(hw) +
         ",kh=3,kw=3,stride=" + std::to_string(stride) + ",pad=1";
}

std::vector<Layer> Layers() {
  static std::vector<std::string> shapes;  // keeps the c_str()s alive
  const std::vector<std::pair<const char*, std::string>> convs = {
      // AlexNet
      {"conv2d", Conv(1, 3, 227, 64, 11, 4, 0)},
      {"conv2d", Conv(1, 64, 27, 192, 5, 1, 2)},
      {"conv2d", Conv(1, 192, 13, 384, 3, 1, 1)},
      {"conv2d", Conv(1, 384, 13, 256, 3, 1, 1)},
      {"conv2d", Conv(1, 256, 13, 256, 3, 1, 1)},
      // ResNet-18
      {"conv2d", Conv(1, 3, 224, 64, 7, 2, 3)},
      {"conv2d", Conv(1, 64, 56, 64, 3, 1, 1)},
      {"conv2d", Conv(1, 64, 56, 128, 3, 2, 1)},
      {"conv2d", Conv(1, 64, 56, 128, 1, 2, 0)},
      {"conv2d", Conv(1, 128, 28, 128, 3, 1, 1)},
      {"conv2d", Conv(1, 128, 28, 256, 3, 2, 1)},
      {"conv2d", Conv(1, 128, 28, 256, 1, 2, 0)},
      {"conv2d", Conv(1, 256, 14, 256, 3, 1, 1)},
      {"conv2d", Conv(1, 256, 14, 512, 3, 2, 1)},
      {"conv2d", Conv(1, 256, 14, 512, 1, 2, 0)},
      {"conv2d", Conv(1, 512, 7, 512, 3, 1, 1)},
      // OpEvo C1 and C2 (AlexNet at batch 512)
      {"conv2d", Conv(512, 3, 227, 64, 11, 4, 0)},
      {"conv2d", Conv(512, 64, 27, 192, 5, 1, 2)},
      // MobileNet-v1 depthwise layers
      {"depthwise_conv2d", Depthwise(32, 112, 1)},
      {"depthwise_conv2d", Depthwise(64, 112, 2)},
      {"depthwise_conv2d", Depthwise(128, 56, 1)},
      {"depthwise_conv2d", Depthwise(128, 56, 2)},
      {"depthwise_conv2d", Depthwise(256, 28, 1)},
      {"depthwise_conv2d", Depthwise(256, 28, 2)},
      {"depthwise_conv2d", Depthwise(512, 14, 1)},
      {"depthwise_conv2d", Depthwise(512, 14, 2)},
      {"depthwise_conv2d", Depthwise(1024, 7, 1)},
  };
  shapes.clear();
  shapes.reserve(convs.size());
  std::vector<Layer> layers = {
      {"gemm", "512,1024,1024"},
      {"gemm", "512,4096,1024"},
      {"gemm", "512,1024,4096"},                            // MM1-3
      {"batch_matmul", "960,128,64,128"},                   // BMM1
      {"batch_matmul", "960,128,64,128", {"transpose_a"}},  // BMM2
      {"batch_matmul", "960,128,128,64", {"transpose_b"}},  // BMM3
  };
  for (const auto& [op, shape] : convs) {
    shapes.push_back(shape);
    layers.push_back({op, shapes.back().c_str()});
  }
  return layers;
}

INSTANTIATE_TEST_SUITE_P(ZooAndPaper, NetworkShapes, ::testing::ValuesIn(Layers()));

}  // namespace
}  // namespace tt
