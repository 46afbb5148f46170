// ONNX models as networks, on the models tests/data/make_onnx_models.py writes at build time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/errors.h"
#include "networks/network.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

std::string Model(const std::string& name) { return std::string(TT_ONNX_MODELS) + "/" + name; }

NetworkLoadOptions Batch(int64_t batch) {
  NetworkLoadOptions o;
  o.batch = batch;
  return o;
}

// Workload key -> weight.
std::map<std::string, int64_t> Weights(const std::vector<NetworkTask>& tasks) {
  std::map<std::string, int64_t> weights;
  for (const auto& t : tasks) weights[t.workload.Key()] = t.weight;
  return weights;
}

const UntunedLayer* FindUntuned(const Network& n, const std::string& name) {
  const auto it = std::find_if(n.untuned.begin(), n.untuned.end(), [&](const auto& u) { return u.name == name; });
  return it == n.untuned.end() ? nullptr : &*it;
}

// The message of the UserError that loading throws.
std::string Refusal(const std::string& path, const NetworkLoadOptions& options = {}) {
  try {
    LoadNetwork(path, options);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(loaded)";
}

class ScratchDir {
 public:
  ScratchDir()
      : path_(fs::temp_directory_path() / ("tt-onnx-" + std::to_string(::getpid()) + "-" + std::to_string(n_++))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  static inline int n_ = 0;
  fs::path path_;
};

TEST(OnnxModel, ResNetWithDynamicBatchGivesTheTasksAndWeightsOfTheBuiltinResnet18) {
  for (int64_t batch : {1, 8}) {
    const Network onnx = LoadNetwork(Model("resnet18.onnx"), Batch(batch));
    ASSERT_EQ(onnx.batch, batch);
    EXPECT_EQ(Weights(NetworkTasks(onnx, batch)), Weights(NetworkTasks(LoadNetwork("resnet18"), batch))) << batch;
    EXPECT_THROW(NetworkTasks(onnx, batch + 1), UserError);  // its shapes are fixed at load
  }
  // No --batch: the dynamic batch is 1, as for the built-ins.
  const Network plain = LoadNetwork(Model("resnet18.onnx"));
  EXPECT_EQ(plain.batch, 1);
  EXPECT_EQ(plain.name, "resnet18");
  // Every node is either a layer or listed: 21 layers (20 convolutions and the classifier),
  // 20 batch normalisations, 17 ReLUs, ..., the flatten's shape arithmetic folded at load.
  EXPECT_EQ(plain.layers.size(), 21u);
  EXPECT_EQ(std::count_if(plain.untuned.begin(), plain.untuned.end(),
                          [](const auto& u) { return u.op == "BatchNormalization" && u.why == "normalisation"; }),
            20);
  const auto* pool = FindUntuned(plain, "maxpool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->why, "pooling");
  EXPECT_DOUBLE_EQ(*pool->flops, 64.0 * 56 * 56 * 9);
  const auto* shape = FindUntuned(plain, "shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->why, "constant (computed at load)");
}

TEST(OnnxModel, MobileNetBlockMapsItsDepthwiseLayers) {
  const Network builtin = LoadNetwork("mobilenet_v1");
  for (int64_t batch : {1, 4}) {
    const Network onnx = LoadNetwork(Model("mobilenet_v1_head.onnx"), Batch(batch));
    const auto tasks = NetworkTasks(onnx, batch);
    ASSERT_EQ(tasks.size(), 5u);
    // conv1, dw1, pw1, dw2, pw2 of the built-in MobileNet-v1, in order.
    const auto expected = NetworkTasks(builtin, batch);
    for (size_t i = 0; i < tasks.size(); ++i) EXPECT_EQ(tasks[i].workload, expected[i].workload) << i;
    EXPECT_EQ(tasks[1].workload.op, "depthwise_conv2d");
    EXPECT_EQ(tasks[1].layers, std::vector<std::string>{"dw1"});
    EXPECT_EQ(tasks[3].workload.Dim("stride"), 2);
  }
}

TEST(OnnxModel, AttentionMatMulsBecomeGemmAndBatchMatmulAsInBertBase) {
  for (int64_t batch : {1, 2}) {
    const Network onnx = LoadNetwork(Model("bert_layer.onnx"), Batch(batch));
    auto builtin = Weights(NetworkTasks(LoadNetwork("bert_base"), batch));
    for (auto& [key, weight] : builtin) weight /= 12;  // one of BERT-base's 12 layers
    EXPECT_EQ(Weights(NetworkTasks(onnx, batch)), builtin) << batch;
  }
  // The scores' MatMul reads K through a Transpose of its last two axes: transpose_b.
  const auto tasks = NetworkTasks(LoadNetwork(Model("bert_layer.onnx")), 1);
  const auto scores = std::find_if(tasks.begin(), tasks.end(), [](const auto& t) { return t.layers[0] == "scores"; });
  ASSERT_NE(scores, tasks.end());
  EXPECT_EQ(scores->workload.Key(), "batch_matmul:b=12,m=128,n=128,k=64,transpose_a=0,transpose_b=1");
}

TEST(OnnxModel, TransposesOfActivationsAreHonouredAndThoseOfWeightsAreLayouts) {
  const auto tasks = NetworkTasks(LoadNetwork(Model("matmul_variants.onnx")), 64);
  std::map<std::string, std::string> by_layer;
  for (const auto& t : tasks) by_layer[t.layers[0]] = t.workload.Key();
  EXPECT_EQ(by_layer["weight_transposed"], "gemm:m=64,n=48,k=32");
  EXPECT_EQ(by_layer["activation_transposed"], "batch_matmul:b=1,m=64,n=48,k=32,transpose_a=0,transpose_b=1");
  EXPECT_EQ(by_layer["a_transposed"], "batch_matmul:b=1,m=64,n=16,k=32,transpose_a=1,transpose_b=0");
  EXPECT_EQ(by_layer["vector"], "gemm:m=1,n=10,k=32");
}

TEST(OnnxModel, NodesNotTunedAreListedWithWhyAndTheirFlops) {
  const Network n = LoadNetwork(Model("not_tuned.onnx"), Batch(2));
  std::map<std::string, std::string> tuned;
  for (const auto& t : NetworkTasks(n, 2)) tuned[t.layers[0]] = t.workload.Key();
  EXPECT_EQ(tuned.size(), 3u);
  EXPECT_EQ(tuned["plain"], "conv2d:n=2,ci=64,h=32,w=32,co=64,kh=3,kw=3,stride=1,pad=1,dilation=1");
  // pads (1, 1, 0, 0) with stride 2: no window reaches the missing bottom and right rows, so pad 1.
  EXPECT_EQ(tuned["unreached_pad"], "conv2d:n=2,ci=64,h=32,w=32,co=32,kh=3,kw=3,stride=2,pad=1,dilation=1");
  EXPECT_EQ(tuned["dilated"], "conv2d:n=2,ci=64,h=32,w=32,co=32,kh=3,kw=3,stride=1,pad=2,dilation=2");

  const std::map<std::string, std::pair<std::string, double>> expected = {
      {"grouped", {"grouped convolution (4 groups of 16 channels)", 2.0 * 2 * 64 * 32 * 32 * 16 * 9}},
      {"multiplier2", {"channel multiplier 2", 2.0 * 2 * 128 * 32 * 32 * 9}},
      {"same_upper", {"asymmetric padding (top 0, left 0, bottom 1, right 1)", 2.0 * 2 * 32 * 16 * 16 * 64 * 9}},
      {"strides_2x1", {"strides 2x1 differ", 2.0 * 2 * 32 * 16 * 32 * 64 * 9}},
      {"conv3d", {"3-D convolution", 2.0 * 2 * 8 * 8 * 16 * 16 * 4 * 27}},
      {"up", {"transposed convolution", 2.0 * 2 * 64 * 32 * 32 * 32 * 4}},
      {"pool", {"pooling", 2.0 * 64 * 16 * 16 * 4}},
      {"bn", {"normalisation", 2.0 * 2 * 64 * 32 * 32}},
      {"relu", {"activation", 2.0 * 64 * 32 * 32}}};
  for (const auto& [name, why_flops] : expected) {
    const auto* u = FindUntuned(n, name);
    ASSERT_NE(u, nullptr) << name;
    EXPECT_NE(u->why.find(why_flops.first), std::string::npos) << name << ": " << u->why;
    ASSERT_TRUE(u->flops) << name;
    EXPECT_DOUBLE_EQ(*u->flops, why_flops.second) << name;
  }
  // An operator nobody knows, and the convolution whose shapes it hides: listed, FLOPs unknown.
  const auto* mystery = FindUntuned(n, "mystery");
  ASSERT_NE(mystery, nullptr);
  EXPECT_EQ(mystery->op, "com.example.Mystery");
  EXPECT_FALSE(mystery->flops);
  const auto* after = FindUntuned(n, "after_mystery");
  ASSERT_NE(after, nullptr);
  EXPECT_NE(after->why.find("shapes unknown: node 'mystery' (com.example.Mystery)"), std::string::npos) << after->why;
  EXPECT_EQ(n.layers.size() + n.untuned.size(), 14u);  // every node, once
}

TEST(OnnxModel, AModelWithExternalDataLoadsWithoutItsWeightsAndIsRefusedWhenTheyAreMissing) {
  const Network n = LoadNetwork(Model("external_data.onnx"), Batch(3));
  const auto tasks = NetworkTasks(n, 3);
  ASSERT_EQ(tasks.size(), 2u);  // the Reshape's target lives in the data file too
  EXPECT_EQ(tasks[1].workload.Key(), "gemm:m=3,n=10,k=8192");

  ScratchDir dir;
  fs::copy_file(Model("external_data.onnx"), dir.path() / "external_data.onnx");
  const std::string missing = Refusal((dir.path() / "external_data.onnx").string());
  EXPECT_NE(missing.find("initializer '"), std::string::npos) << missing;
  EXPECT_NE(missing.find("(used by node '"), std::string::npos) << missing;
  EXPECT_NE(missing.find("its external data file 'external_data.onnx.data' is missing"), std::string::npos) << missing;
  std::ofstream(dir.path() / "external_data.onnx.data") << "short";
  const std::string shorter = Refusal((dir.path() / "external_data.onnx").string());
  EXPECT_NE(shorter.find("holds 5 bytes"), std::string::npos) << shorter;
}

TEST(OnnxModel, AFixedBatchIsTheModelsOwn) {
  const Network n = LoadNetwork(Model("fixed_batch.onnx"));
  EXPECT_EQ(n.batch, 2);
  EXPECT_EQ(NetworkTasks(n, 2).front().workload.Dim("n"), 2);
  EXPECT_EQ(LoadNetwork(Model("fixed_batch.onnx"), Batch(2)).batch, 2);
  EXPECT_NE(Refusal(Model("fixed_batch.onnx"), Batch(8)).find("--batch 8 does not apply"), std::string::npos);
}

TEST(OnnxModel, InputShapesFixDynamicDimensions) {
  NetworkLoadOptions o;
  o.input_shapes["x"] = {2, 3, 64, 48};
  const auto tasks = NetworkTasks(LoadNetwork(Model("dynamic_hw.onnx"), o), 2);
  EXPECT_EQ(tasks.front().workload.Key(), "conv2d:n=2,ci=3,h=64,w=48,co=8,kh=3,kw=3,stride=1,pad=1,dilation=1");
  EXPECT_EQ(ParseInputShape("input_ids=1,128"), (std::pair<std::string, std::vector<int64_t>>{"input_ids", {1, 128}}));
  for (const char* bad : {"x", "x=", "=1,2", "x=1,,2", "x=0,3", "x=1,-3", "x=a"})
    EXPECT_THROW(ParseInputShape(bad), UserError) << bad;
}

struct BadModel {
  const char* name;
  std::string path;
  NetworkLoadOptions options;
  std::string message;
};

class OnnxRefusals : public ::testing::TestWithParam<BadModel> {};

TEST_P(OnnxRefusals, NameTheNodeOrInputAndTheProblem) {
  const std::string what = Refusal(GetParam().path, GetParam().options);
  EXPECT_NE(what.find("ONNX model " + GetParam().path + ": "), std::string::npos) << what;
  EXPECT_NE(what.find(GetParam().message), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

NetworkLoadOptions Shape(const std::string& input, std::vector<int64_t> dims) {
  NetworkLoadOptions o;
  o.input_shapes[input] = std::move(dims);
  return o;
}

INSTANTIATE_TEST_SUITE_P(
    Broken, OnnxRefusals,
    ::testing::Values(
        BadModel{"Opset18", Model("opset18.onnx"), {}, "opset 18 of domain 'ai.onnx' is not supported"},
        BadModel{
            "DynamicWithoutValue",
            Model("dynamic_hw.onnx"),
            {},
            "input 'x' has no value for its dimension 2 ('height'): give every dimension with --input-shape x=1,3,"},
        BadModel{"ChannelsDoNotFit", Model("bad_channels.onnx"), {}, "node 'conv' (Conv): its weight 'conv.weight'"},
        // Before: SIGFPE inside libonnx's shape inference.
        BadModel{"ZeroStrides", Model("zero_strides.onnx"), {}, "node 'conv' (Conv): attribute strides holds 0"},
        BadModel{"ZeroDilations", Model("zero_dilations.onnx"), {}, "node 'conv' (Conv): attribute dilations holds 0"},
        BadModel{"CutAfterItsGraph", Model("no_opset.onnx"), {}, "the model imports no opset: the file is truncated"},
        BadModel{"DanglingInput", Model("dangling_input.onnx"), {}, "node 'relu_1' (Relu): its input 'nowhere'"},
        BadModel{"UnknownInput", Model("dynamic_hw.onnx"), Shape("image", {1, 3, 8, 8}), "--input-shape names 'image'"},
        BadModel{"WrongRank", Model("dynamic_hw.onnx"), Shape("x", {1, 3, 8}), "gives 3 dimensions; input 'x' has 4"},
        BadModel{"FixedDimension", Model("fixed_batch.onnx"), Shape("x", {2, 3, 64, 64}),
                 "input 'x' has dimension 2 fixed at 32"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(OnnxModel, FilesThatAreNotOnnxOrTruncatedAreRefused) {
  ScratchDir dir;
  const auto text = dir.path() / "notes.onnx";
  std::ofstream(text) << "hello, this is not a model\n";
  EXPECT_NE(Refusal(text.string()).find("not an ONNX model"), std::string::npos) << Refusal(text.string());
  const auto empty = dir.path() / "empty.onnx";
  std::ofstream{empty};
  EXPECT_NE(Refusal(empty.string()).find("the file is empty"), std::string::npos);
  // Half of a model.
  std::ifstream in(Model("mobilenet_v1_head.onnx"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto half = dir.path() / "half.onnx";
  std::ofstream(half, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_NE(Refusal(half.string()).find("truncated"), std::string::npos) << Refusal(half.string());
  // A model whose file is a JSON network's is read as JSON when not named .onnx.
  const auto json = dir.path() / "net";
  std::ofstream(json) << R"({"name": "n", "layers": [{"op": "gemm", "shape": "8,8,8"}]})";
  EXPECT_EQ(LoadNetwork(json.string()).layers.size(), 1u);
  NetworkLoadOptions shaped;
  shaped.input_shapes["x"] = {1};
  EXPECT_THROW(LoadNetwork(json.string(), shaped), UserError);
  EXPECT_THROW(LoadNetwork("resnet18", shaped), UserError);
}

}  // namespace
}  // namespace tt
