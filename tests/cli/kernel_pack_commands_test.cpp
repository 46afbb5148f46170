// End to end on the default OpenCL device: run-network and export-kernels on a small network
// whose history holds chosen sketches, so that layouts change from layer to layer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_program.h"
#include "runtime/runtime_test_support.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

// conv2d_oc_vec (NCHW in and out) -> depthwise_conv2d_nchwc (NCHW16c) twice -> conv2d_oc_vec:
// two device-side layout conversions; then a GEMM whose config runs the pack_b pre-pass.
const char* kNetwork = R"({"name": "mixed", "layers": [
  {"name": "stem", "op": "conv2d", "shape": "n={batch},ci=3,h=12,w=12,co=20,kh=3,kw=3,stride=1,pad=1"},
  {"name": "dw", "op": "depthwise_conv2d", "shape": "n={batch},c=20,h=12,w=12,kh=3,kw=3,stride=1,pad=1", "repeat": 2},
  {"name": "pw", "op": "conv2d", "shape": "n={batch},ci=20,h=12,w=12,co=24,kh=1,kw=1,stride=1,pad=0"},
  {"name": "fc", "op": "gemm", "shape": "{batch*8},40,24"}]})";

struct MixedNetwork {
  ScratchDir dir;
  std::string network, db;
};

// The network file and a history of the default device holding one chosen config per layer.
void Prepare(MixedNetwork& s, bool with_fc = true) {
  s.network = (s.dir.path() / "mixed.json").string();
  s.db = (s.dir.path() / "h.db").string();
  std::ofstream(s.network) << kNetwork;
  const DeviceInfo device = ocl::EnumerateDevices().front().info;
  const auto any = [](const ConfigSpace&, const Config&) { return true; };
  const Workload stem = ParseWorkload("conv2d", "n=1,ci=3,h=12,w=12,co=20,kh=3,kw=3,stride=1,pad=1");
  const Workload dw = ParseWorkload("depthwise_conv2d", "n=1,c=20,h=12,w=12,kh=3,kw=3,stride=1,pad=1");
  const Workload pw = ParseWorkload("conv2d", "n=1,ci=20,h=12,w=12,co=24,kh=1,kw=1,stride=1,pad=0");
  const Workload fc = ParseWorkload("gemm", "8,40,24");
  testing::Record(s.db, stem, "conv2d_oc_vec", testing::FindConfig(stem, "conv2d_oc_vec", device, any), device, 5);
  testing::Record(s.db, dw, "depthwise_conv2d_nchwc", testing::FindConfig(dw, "depthwise_conv2d_nchwc", device, any),
                  device, 2);
  testing::Record(s.db, pw, "conv2d_oc_vec", testing::FindConfig(pw, "conv2d_oc_vec", device, any), device, 4);
  if (with_fc)
    testing::Record(
        s.db, fc, "gemm_tiled",
        testing::FindConfig(fc, "gemm_tiled", device,
                            [](const ConfigSpace& sp, const Config& c) { return sp.Scalar(c, "pack_b") == 1; }),
        device, 1);
}

const std::string kQuick = " --min-time 0.02 --min-runs 2";

TEST(RunNetworkCommand, ChainsLayersThroughLayoutConversionsChecksEachAndTimesTheWhole) {
  MixedNetwork s;
  Prepare(s);
  const auto r =
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --json", s.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layers_total"], 5);
  EXPECT_EQ(j["conversions"], 2) << "NCHW -> NCHW16c before the depthwise layers, and back after them";
  EXPECT_TRUE(j["verified"].get<bool>());
  EXPECT_GT(j["measured_latency_s"].get<double>(), 0);
  EXPECT_EQ(j["estimated_layers"], 5);
  // 2 FLOP per MAC at the recorded GFLOPS: stem 5, dw 2 (twice), pw 4, fc 1.
  const double expected = 2.0 * (20 * 144 * 27) / 5e9 + 2 * 2.0 * (20 * 144 * 9) / 2e9 + 2.0 * (24 * 144 * 20) / 4e9 +
                          2.0 * (8 * 40 * 24) / 1e9;
  EXPECT_NEAR(j["estimated_latency_s"].get<double>(), expected, expected * 1e-9);
  const std::vector<std::string> sketches{"conv2d_oc_vec", "depthwise_conv2d_nchwc", "depthwise_conv2d_nchwc",
                                          "conv2d_oc_vec", "gemm_tiled"};
  const std::vector<bool> chained{false, true, true, true, false};
  for (size_t i = 0; i < 5; ++i) {
    const auto& layer = j["layers"][i];
    EXPECT_EQ(layer["template"], sketches[i]);
    EXPECT_EQ(layer["origin"], "exact");
    EXPECT_EQ(layer["check"], "ok") << layer.dump();
    EXPECT_EQ(layer["chained"], chained[i]) << layer["layer"];
  }

  const auto text = RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick, s.dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("measured latency: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("estimated latency (tune-network"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("2 layout conversions"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("alone ms"), std::string::npos) << "layers are timed alone only when asked";

  const auto alone = RunProgram(
      kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --alone-time 0.005 --json", s.dir.path());
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  for (const auto& layer : nlohmann::json::parse(alone.out)["layers"])
    EXPECT_GT(layer["alone_time_s"].get<double>(), 0) << layer.dump();
  const auto refused =
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --alone-time -1", s.dir.path());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--alone-time"), std::string::npos) << refused.err;
}

// Timed alone, a layer is timed as tuning timed it: run-network names the layers that ran well
// slower than recorded. Records a million times faster than any kernel: all of them; a million
// times slower: none.
TEST(RunNetworkCommand, NamesTheLayersThatRanAloneWellSlowerThanRecorded) {
  MixedNetwork s;
  Prepare(s);
  const auto scale_records = [&](const std::string& factor) {
    const std::string sql = "UPDATE trials SET gflops = gflops * " + factor + ";";
    ASSERT_EQ(std::system(("sqlite3 " + s.db + " \"" + sql + "\"").c_str()), 0);
  };
  const std::string command = kProgram + " run-network " + s.network + " --db " + s.db + kQuick;
  scale_records("1e6");
  const auto slower = RunProgram(command + " --alone-time 0.005", s.dir.path());
  ASSERT_EQ(slower.exit_code, 0) << slower.err;
  EXPECT_NE(slower.out.find("5 of 5 layers ran alone at 1.25x their recorded time or slower"), std::string::npos)
      << slower.out;
  EXPECT_NE(slower.out.find("; fc "), std::string::npos) << slower.out;
  const auto not_timed_alone = RunProgram(command, s.dir.path());
  ASSERT_EQ(not_timed_alone.exit_code, 0) << not_timed_alone.err;
  EXPECT_EQ(not_timed_alone.out.find("ran alone at"), std::string::npos) << not_timed_alone.out;
  scale_records("1e-12");
  const auto as_recorded = RunProgram(command + " --alone-time 0.005", s.dir.path());
  ASSERT_EQ(as_recorded.exit_code, 0) << as_recorded.err;
  EXPECT_EQ(as_recorded.out.find("ran alone at"), std::string::npos) << as_recorded.out;
}

// With channel-blocked kernels of the stem and the pointwise layer recorded too (slower alone),
// run-network times both layouts and the conversions, and runs the plan it chose: whatever
// it is, every layer is checked, and the conversions it counts are the layout changes
// between chained layers. --fastest-each runs the recorded best of each, with 2 conversions.
TEST(RunNetworkCommand, WeighsKernelsOfOtherLayoutsWithTheConversionsTheySave) {
  MixedNetwork s;
  Prepare(s);
  const DeviceInfo device = ocl::EnumerateDevices().front().info;
  const auto any = [](const ConfigSpace&, const Config&) { return true; };
  for (const char* shape :
       {"n=1,ci=3,h=12,w=12,co=20,kh=3,kw=3,stride=1,pad=1", "n=1,ci=20,h=12,w=12,co=24,kh=1,kw=1,stride=1,pad=0"}) {
    const Workload w = ParseWorkload("conv2d", shape);
    testing::Record(s.db, w, "conv2d_oc_vec_nchwc", testing::FindConfig(w, "conv2d_oc_vec_nchwc", device, any), device,
                    0.5);
  }
  const auto r =
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --json", s.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["verified"].get<bool>());
  EXPECT_TRUE(j["layout_plan"]["weighed"].get<bool>());
  EXPECT_EQ(j["layout_plan"]["conversions_fastest_each"], 2);
  int changes = 0, replanned = 0;
  for (size_t i = 0; i < 5; ++i) {
    const auto& layer = j["layers"][i];
    EXPECT_EQ(layer["check"], "ok") << layer.dump();
    if (i == 0 || i == 3) {
      const bool blocked = layer["template"] == "conv2d_oc_vec_nchwc";
      EXPECT_TRUE(blocked || layer["template"] == "conv2d_oc_vec") << layer.dump();
      EXPECT_EQ(layer["output_layout"], blocked ? "NCHW16c" : "NCHW");
      EXPECT_EQ(layer["input_layout"], blocked && i == 3 ? "NCHW16c" : "NCHW") << "an image of 3 channels stays NCHW";
      replanned += blocked;
    }
    if (i > 0 && layer["chained"].get<bool>()) changes += j["layers"][i - 1]["output_layout"] != layer["input_layout"];
  }
  EXPECT_EQ(j["conversions"], changes);
  EXPECT_EQ(j["layout_plan"]["layers_replanned"], replanned);

  const auto each = RunProgram(
      kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --json --fastest-each", s.dir.path());
  ASSERT_EQ(each.exit_code, 0) << each.out << each.err;
  const auto k = nlohmann::json::parse(each.out);
  EXPECT_FALSE(k["layout_plan"]["weighed"].get<bool>());
  EXPECT_EQ(k["conversions"], 2);
  EXPECT_EQ(k["layers"][0]["template"], "conv2d_oc_vec");
  EXPECT_EQ(k["layers"][3]["template"], "conv2d_oc_vec");
}

TEST(RunNetworkCommand, FallbacksAreLabelledAndExactOnlyRefusesThem) {
  MixedNetwork s;
  Prepare(s, /*with_fc=*/false);
  const auto r = RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick, s.dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("| fc | gemm:m=8,n=40,k=24 | gemm_tiled | default |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 4 kernels are fallbacks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 4 of 5 layers (fallbacks have no estimate)"), std::string::npos) << r.out;

  const auto strict =
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --exact-only", s.dir.path());
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_NE(strict.err.find("gemm:m=8,n=40,k=24"), std::string::npos) << strict.err;
  EXPECT_EQ(strict.out, "");
}

// The baseline: --untuned runs every layer at its template's untuned default; an empty
// history runs the device's starting configs instead (what a never-tuned workload gets).
TEST(RunNetworkCommand, UntunedRunsTemplateDefaultsAndAnEmptyHistoryStartingConfigs) {
  MixedNetwork s;
  s.network = (s.dir.path() / "mixed.json").string();
  std::ofstream(s.network) << kNetwork;
  const auto untuned =
      RunProgram(kProgram + " run-network " + s.network + " --untuned" + kQuick + " --json", s.dir.path());
  ASSERT_EQ(untuned.exit_code, 0) << untuned.out << untuned.err;
  const auto u = nlohmann::json::parse(untuned.out);
  EXPECT_TRUE(u["verified"].get<bool>());
  ASSERT_EQ(u["layers"].size(), 5u);
  for (const auto& layer : u["layers"]) {
    EXPECT_EQ(layer["origin"], "default");
    EXPECT_NE(layer["note"].get<std::string>().find("untuned"), std::string::npos) << layer.dump();
  }

  const std::string empty = (s.dir.path() / "empty.db").string();
  ASSERT_EQ(RunProgram(kProgram + " sql --write --db " + empty + " \"SELECT 1\"", s.dir.path()).exit_code, 0);
  const auto never =
      RunProgram(kProgram + " run-network " + s.network + " --db " + empty + kQuick + " --json", s.dir.path());
  ASSERT_EQ(never.exit_code, 0) << never.out << never.err;
  const auto n = nlohmann::json::parse(never.out);
  EXPECT_TRUE(n["verified"].get<bool>());
  for (const auto& layer : n["layers"]) {
    EXPECT_EQ(layer["origin"], "default");
    EXPECT_NE(layer["note"].get<std::string>().find("starting config"), std::string::npos) << layer.dump();
  }

  testing::ExpectRefusal(RunProgram(kProgram + " run-network " + s.network + " --untuned --db " + empty, s.dir.path()),
                         "give one of --db", s.dir.path() / "nothing-written");
}

TEST(ExportKernelsCommand, WritesAPackThatRunsWithoutTheDatabase) {
  MixedNetwork s;
  Prepare(s);
  const auto pack = s.dir.path() / "pack";
  const auto e =
      RunProgram(kProgram + " export-kernels " + s.network + " --db " + s.db + " --out " + pack.string(), s.dir.path());
  ASSERT_EQ(e.exit_code, 0) << e.out << e.err;
  EXPECT_NE(e.out.find("wrote " + pack.string() + "/manifest.json and 4 kernel sources"), std::string::npos) << e.out;
  const auto manifest = nlohmann::json::parse(testing::ReadFile(pack / "manifest.json"));
  ASSERT_EQ(manifest["tasks"].size(), 4u);
  EXPECT_EQ(manifest["tasks"][1]["weight"], 2);
  EXPECT_EQ(manifest["tasks"][1]["arguments"][0]["layout"], "NCHW16c");
  EXPECT_EQ(manifest["tasks"][3]["launches"][0]["kernel"], "pack_b");
  EXPECT_EQ(manifest["tasks"][3]["launches"][1]["args"], (nlohmann::json{"A", "scratch", "C"}));
  for (const auto& t : manifest["tasks"])
    EXPECT_TRUE(std::filesystem::exists(pack / t["source_file"].get<std::string>()));

  const auto from_db =
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + kQuick + " --json", s.dir.path());
  std::filesystem::rename(s.db, s.dir.path() / "elsewhere.db");
  const auto from_pack = RunProgram(
      kProgram + " run-network " + s.network + " --pack " + pack.string() + kQuick + " --json", s.dir.path());
  ASSERT_EQ(from_pack.exit_code, 0) << from_pack.out << from_pack.err;
  const auto a = nlohmann::json::parse(from_db.out), b = nlohmann::json::parse(from_pack.out);
  EXPECT_TRUE(b["verified"].get<bool>());
  EXPECT_EQ(b["conversions"], 2);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(a["layers"][i]["config_key"], b["layers"][i]["config_key"]);
    EXPECT_EQ(b["layers"][i]["check"], "ok");
  }
  EXPECT_DOUBLE_EQ(a["estimated_latency_s"].get<double>(), b["estimated_latency_s"].get<double>());

  // The directory is written whole or not at all, and never over something else.
  const auto again = RunProgram(kProgram + " export-kernels " + s.network + " --db " +
                                    (s.dir.path() / "elsewhere.db").string() + " --out " + pack.string(),
                                s.dir.path());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("exists and is not empty"), std::string::npos) << again.err;
}

TEST(ExportKernelsCommand, RefusesWhatItCannotExportAndDamagedPacksAreRefused) {
  MixedNetwork s;
  Prepare(s, /*with_fc=*/false);
  const auto pack = s.dir.path() / "pack";
  const auto strict =
      RunProgram(kProgram + " export-kernels " + s.network + " --db " + s.db + " --exact-only --out " + pack.string(),
                 s.dir.path());
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_NE(strict.err.find("nothing written"), std::string::npos) << strict.err;
  EXPECT_FALSE(std::filesystem::exists(pack));

  const auto unknown = RunProgram(
      kProgram + " export-kernels " + s.network + " --db " + s.db + " --device no-such-device --out " + pack.string(),
      s.dir.path());
  testing::ExpectRefusal(unknown, "no device matching 'no-such-device'", pack);
  testing::ExpectRefusal(
      RunProgram(kProgram + " run-network " + s.network + " --db " + s.db + " --pack " + pack.string(), s.dir.path()),
      "give one of --db", pack);

  ASSERT_EQ(
      RunProgram(kProgram + " export-kernels " + s.network + " --db " + s.db + " --out " + pack.string(), s.dir.path())
          .exit_code,
      0);
  std::string text = testing::ReadFile(pack / "manifest.json");
  text.replace(text.find("\"weight\": 2"), 11, "\"weight\": 3");
  std::ofstream(pack / "manifest.json", std::ios::trunc) << text;
  const auto damaged = RunProgram(kProgram + " run-network " + s.network + " --pack " + pack.string(), s.dir.path());
  EXPECT_EQ(damaged.exit_code, 2);
  EXPECT_NE(damaged.err.find("changed after it was exported"), std::string::npos) << damaged.err;
  EXPECT_EQ(std::count(damaged.err.begin(), damaged.err.end(), '\n'), 1) << damaged.err;
}

}  // namespace
}  // namespace tt
