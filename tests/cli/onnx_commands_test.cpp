// End to end: ONNX models through `networks`, `tasks` and `tune-network` (POCL in CI).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "run_program.h"

namespace tt {
namespace {

using testing::ExpectRefusal;
using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

const std::string kProgram = TENSORTUNE_BIN;
std::string Model(const std::string& name) { return std::string(TT_ONNX_MODELS) + "/" + name; }

// Workload -> weight of the tuned entries of `tasks --json`.
std::map<std::string, int> TunedWeights(const nlohmann::json& entries) {
  std::map<std::string, int> weights;
  for (const auto& e : entries)
    if (e["tuned"] == true) weights[e["workload"]] = e["weight"];
  return weights;
}

TEST(OnnxCommands, TasksOfAResNetModelAreThoseOfTheBuiltinWithTheRestListedAsNotTuned) {
  ScratchDir dir;
  for (const char* batch : {"1", "8"}) {
    const auto onnx =
        RunProgram(kProgram + " tasks " + Model("resnet18.onnx") + " --json --batch " + batch, dir.path());
    ASSERT_EQ(onnx.exit_code, 0) << onnx.err;
    const auto builtin = RunProgram(kProgram + " tasks resnet18 --json --batch " + batch, dir.path());
    ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
    const auto entries = nlohmann::json::parse(onnx.out);
    EXPECT_EQ(TunedWeights(entries), TunedWeights(nlohmann::json::parse(builtin.out))) << batch;
    // The nodes not tuned follow the tasks, grouped by operator and reason, with their share.
    double share = 0;
    bool batch_norm = false;
    for (const auto& e : entries) {
      share += e["share"].get<double>();
      if (e["tuned"] == false && e["op"] == "BatchNormalization") {
        batch_norm = true;
        EXPECT_EQ(e["weight"], 20);
        EXPECT_GT(e["share"].get<double>(), 0);
      }
    }
    EXPECT_TRUE(batch_norm);
    EXPECT_NEAR(share, 1.0, 1e-9);
  }
  const auto text = RunProgram(kProgram + " tasks " + Model("not_tuned.onnx"), dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("not tuned: 11 nodes"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| Conv | 1 | "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("grouped convolution (4 groups of 16 channels): no sketch computes it | grouped |"),
            std::string::npos)
      << text.out;
}

TEST(OnnxCommands, NetworksShowsOnnxModelsBesideTheBuiltins) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " networks", dir.path());
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("resnet18"), std::string::npos);
  EXPECT_NE(r.out.find("An ONNX model: `tensortune tasks model.onnx"), std::string::npos) << r.out;
}

TEST(OnnxCommands, TuneNetworkTunesAnOnnxModelAndListsWhatItLeavesOut) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const auto r =
      RunProgram(kProgram + " tune-network " + Model("tiny_mlp.onnx") +
                     " --batch 4 --trials 8 --batch-size 4 --min-time 0.005 --tuner random --json --db " + db.string(),
                 dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["network"], "tiny_mlp");
  EXPECT_EQ(report["batch"], 4);
  ASSERT_EQ(report["tasks"].size(), 2u);
  EXPECT_EQ(report["tasks"][0]["workload"], "gemm:m=4,n=32,k=32");
  EXPECT_EQ(report["tasks"][0]["weight"], 2);
  ASSERT_EQ(report["not_tuned"].size(), 1u);
  EXPECT_EQ(report["not_tuned"][0]["op"], "Relu");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "8\n");
  EXPECT_EQ(Sql(db, "SELECT network, batch FROM network_runs"), "tiny_mlp|4\n");
}

struct Broken {
  const char* name;
  std::string args;
  std::string message;
};

class OnnxCommandRefusals : public ::testing::TestWithParam<Broken> {};

// tasks and tune-network alike: exit 2, one line naming the problem, no database.
TEST_P(OnnxCommandRefusals, OneLineExitTwoNothingWritten) {
  ScratchDir dir;
  std::ofstream(dir.path() / "text.onnx") << "not a model\n";
  const auto db = dir.path() / "h.db";
  std::string args = GetParam().args;
  if (const auto at = args.find("SCRATCH"); at != std::string::npos) args.replace(at, 7, dir.path().string());
  ExpectRefusal(RunProgram(kProgram + " tasks " + args, dir.path()), GetParam().message, db);
  ExpectRefusal(RunProgram(kProgram + " tune-network " + args + " --trials 4 --db " + db.string(), dir.path()),
                GetParam().message, db);
}

INSTANTIATE_TEST_SUITE_P(
    Onnx, OnnxCommandRefusals,
    ::testing::Values(Broken{"NotOnnx", "SCRATCH/text.onnx", "not an ONNX model"},
                      Broken{"Opset", Model("opset18.onnx"), "opset 18 of domain 'ai.onnx' is not supported"},
                      Broken{"DynamicWithoutValue", Model("dynamic_hw.onnx"),
                             "input 'x' has no value for its dimension 2 ('height')"},
                      Broken{"NodeAtFault", Model("bad_channels.onnx"), "node 'conv' (Conv): its weight"},
                      // Before: SIGFPE inside libonnx's shape inference.
                      Broken{"ZeroStrides", Model("zero_strides.onnx"), "attribute strides holds 0"},
                      Broken{"BatchOfAFixedModel", Model("fixed_batch.onnx") + " --batch 8",
                             "--batch 8 does not apply"},
                      Broken{"MalformedInputShape", Model("dynamic_hw.onnx") + " --input-shape x=1,3,a,4",
                             "malformed --input-shape 'x=1,3,a,4'"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(OnnxCommands, MissingExternalDataIsRefusedNamingTheInitializer) {
  ScratchDir dir;
  const auto model = dir.path() / "external_data.onnx";
  std::filesystem::copy_file(Model("external_data.onnx"), model);
  const auto db = dir.path() / "h.db";
  ExpectRefusal(
      RunProgram(kProgram + " tune-network " + model.string() + " --trials 4 --db " + db.string(), dir.path()),
      "its external data file 'external_data.onnx.data' is missing", db);
  std::filesystem::copy_file(Model("external_data.onnx.data"), dir.path() / "external_data.onnx.data");
  const auto r = RunProgram(kProgram + " tasks " + model.string() + " --input-shape x=5,3,32,32", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("external_data at batch 5: 2 tasks"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tt
