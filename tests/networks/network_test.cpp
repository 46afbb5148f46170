#include "networks/network.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "core/errors.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

int64_t TotalWeight(const std::vector<NetworkTask>& tasks) {
  return std::accumulate(tasks.begin(), tasks.end(), int64_t{0}, [](int64_t s, const auto& t) { return s + t.weight; });
}

TEST(Networks, EveryBuiltinParsesAndItsTasksHaveASketch) {
  const auto networks = BuiltinNetworks();
  std::set<std::string> names;
  for (const auto& n : networks) names.insert(n.name);
  EXPECT_EQ(names, (std::set<std::string>{"alexnet", "bert_base", "mobilenet_v1", "resnet18", "vgg16"}));
  for (const auto& n : networks)
    for (int64_t batch : {1, 4})
      for (const auto& t : NetworkTasks(n, batch))
        EXPECT_FALSE(ApplicableTemplates(t.workload).empty()) << t.workload.Key();
}

TEST(Networks, IdenticalLayersBecomeOneTaskWithTheirCountAsWeight) {
  const auto tasks = NetworkTasks(LoadNetwork("resnet18"), 1);
  EXPECT_EQ(tasks.size(), 12u);       // 11 distinct convolutions and the classifier
  EXPECT_EQ(TotalWeight(tasks), 21);  // 20 convolutions + 1 dense layer
  const auto block = std::find_if(tasks.begin(), tasks.end(), [](const auto& t) {
    return t.workload.Key() == "conv2d:n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1,dilation=1";
  });
  ASSERT_NE(block, tasks.end());
  EXPECT_EQ(block->weight, 4);
  EXPECT_EQ(TotalWeight(NetworkTasks(LoadNetwork("vgg16"), 1)), 16);
  EXPECT_EQ(TotalWeight(NetworkTasks(LoadNetwork("mobilenet_v1"), 1)), 28);
}

TEST(Networks, TheBatchSizeReachesEveryShape) {
  const auto alexnet = NetworkTasks(LoadNetwork("alexnet"), 8);
  EXPECT_EQ(alexnet.front().workload.Dim("n"), 8);
  EXPECT_EQ(alexnet.back().workload.Dim("m"), 8);  // dense: the batch is M
  const auto bert = NetworkTasks(LoadNetwork("bert_base"), 2);
  EXPECT_EQ(bert[0].workload.Dim("m"), 256);  // batch x sequence length
  EXPECT_EQ(bert[1].workload.Dim("b"), 24);   // batch x heads
  EXPECT_EQ(bert[1].workload.Dim("transpose_b"), 1);
  EXPECT_THROW(NetworkTasks(LoadNetwork("alexnet"), 0), UserError);
}

struct BadNetwork {
  const char* name;
  const char* json;
  const char* message;
};

class NetworkRejects : public ::testing::TestWithParam<BadNetwork> {};

TEST_P(NetworkRejects, NamingWhereAndWhat) {
  try {
    ParseNetwork(GetParam().json, "my.json");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("network my.json: "), std::string::npos) << what;
    EXPECT_NE(what.find(GetParam().message), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, NetworkRejects,
    ::testing::Values(
        BadNetwork{"Syntax", "{\"name\": \"n\",\n \"layers\": [\n {\"op\": \"gemm\" \"shape\": \"1,2,3\"}]}",
                   "at line 3"},
        BadNetwork{"NoLayers", R"({"name": "n", "layers": []})", "field 'layers' must be a non-empty list"},
        BadNetwork{"MissingShape",
                   R"({"name": "n", "layers": [{"op": "gemm", "shape": "8,8,8"}, {"name": "fc", "op": "gemm"}]})",
                   "layers[1] (\"fc\"): field 'shape' is missing"},
        BadNetwork{"UnknownOperator", R"({"name": "n", "layers": [{"name": "c", "op": "conv3d", "shape": "1"}]})",
                   "layers[0] (\"c\"): field 'op'/'shape': unknown operator 'conv3d'"},
        BadNetwork{"MalformedShape", R"({"name": "n", "layers": [{"op": "gemm", "shape": "{batch},x,4"}]})",
                   "layers[0] (\"layer0\"): field 'op'/'shape': malformed shape"},
        BadNetwork{"BadRepeat", R"({"name": "n", "layers": [{"op": "gemm", "shape": "8,8,8", "repeat": 0}]})",
                   "field 'repeat' must be a whole number"},
        BadNetwork{"UnknownField", R"({"name": "n", "layers": [{"op": "gemm", "shape": "8,8,8", "weight": 2}]})",
                   "unknown field 'weight'"},
        BadNetwork{"NotAnObject", R"([1, 2])", "expected an object"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Networks, UnknownNameOrMissingFileIsRefused) {
  try {
    LoadNetwork("resnet19");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no built-in network 'resnet19' (known: alexnet"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

std::string GemmLayers(int count, bool distinct) {
  std::string layers;
  for (int i = 0; i < count; ++i)
    layers +=
        std::string(i ? "," : "") + R"({"op": "gemm", "shape": ")" + std::to_string(distinct ? 8 + i : 8) + R"(,8,8"})";
  return R"({"name": "big", "layers": [)" + layers + "]}";
}

// Before: 10,000 to 100,000 distinct layers were accepted, and tune-network grew to gigabytes.
TEST(Networks, AFileMayAskForBoundedLayersAndTasks) {
  EXPECT_EQ(NetworkTasks(ParseNetwork(GemmLayers(600, false), "same.json"), 1).size(), 1u);
  EXPECT_EQ(NetworkTasks(ParseNetwork(GemmLayers(500, true), "500.json"), 1).size(), 500u);
  try {
    NetworkTasks(ParseNetwork(GemmLayers(501, true), "501.json"), 1);
    ADD_FAILURE() << "501 distinct layers accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 500 distinct layers"), std::string::npos) << e.what();
  }
  try {
    ParseNetwork(GemmLayers(10'001, false), "layers.json");
    ADD_FAILURE() << "10,001 layers accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("has 10001 layers; at most 10000"), std::string::npos) << e.what();
  }
  const auto path = std::filesystem::temp_directory_path() / ("tt-network-" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << GemmLayers(1, false) << std::string(17 << 20, ' ');
  try {
    LoadNetwork(path.string());
    ADD_FAILURE() << "a 17 MiB file accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 16777216 are accepted"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tt
