// End to end on the default OpenCL device (POCL in CI): what history buys a new workload.
// `tune --tuner auto` after a similar workload takes the gga flow and starts from adapted
// configs; `best` on an unseen shape gives a fallback that compiles and verifies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ops/kernel_template.h"
#include "run_program.h"
#include "space/config_adapt.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string Sql(const std::filesystem::path& db, const std::string& query) {
  ScratchDir scratch;
  const auto r = RunProgram("sqlite3 " + db.string() + " \"" + query + "\"", scratch.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// A few random trials of gemm 32x32x32: the history every test here starts from.
void TuneHistory(const ScratchDir& dir, const std::filesystem::path& db) {
  const auto r = RunProgram(kProgram +
                                " tune --op gemm --shape 32,32,32 --tuner random --trials 8 --batch-size 8"
                                " --min-time 0.01 --seed 3 --db " +
                                db.string(),
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(WarmStart, AutoTakesTheGgaFlowAndStartsFromAdaptedHistory) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  TuneHistory(dir, db);
  const auto r = RunProgram(kProgram +
                                " tune --op gemm --shape 48,32,32 --tuner auto --trials 8 --batch-size 8"
                                " --min-time 0.01 --db " +
                                db.string(),
                            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("auto: gga flow: best match gemm:m=32,n=32,k=32"), std::string::npos) << r.out;
  EXPECT_EQ(Sql(db, "SELECT tuner FROM runs WHERE id = 2"), "auto-gga\n");

  // Every config of the new run's first batch is a recorded config adapted to 48x32x32.
  const Workload target = ParseWorkload("gemm", "48,32,32");
  const ConfigSpace space = PickTemplate(target, "").Space(target, {4096, 1 << 20});
  std::set<std::string> adapted;
  for (const auto& key : Lines(Sql(db, "SELECT config_key FROM trials WHERE run_id = 1 AND status = 'ok'")))
    if (auto a = AdaptConfig(space, *ParseConfigKey(key))) adapted.insert(space.Key(a->config));
  const auto first_batch = Lines(Sql(db, "SELECT config_key FROM trials WHERE run_id = 2 AND batch = 0"));
  ASSERT_FALSE(first_batch.empty());
  for (const auto& key : first_batch) EXPECT_TRUE(adapted.count(key)) << key << " is not adapted from history";

  // --json says it too.
  const auto json = RunProgram(kProgram +
                                   " tune --op gemm --shape 64,32,32 --tuner auto --trials 1 --min-time 0.01"
                                   " --json --db " +
                                   db.string(),
                               dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.out << json.err;
  EXPECT_NE(nlohmann::json::parse(json.out)["warm_start"].get<std::string>().find("gga flow"), std::string::npos)
      << json.out;
}

TEST(WarmStart, BestGivesAFallbackForAnUnseenShapeThatVerifies) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  TuneHistory(dir, db);
  const auto best = RunProgram(kProgram + " best --op gemm --shape 40,32,24 --db " + db.string(), dir.path());
  ASSERT_EQ(best.exit_code, 0) << best.out << best.err;
  const auto j = nlohmann::json::parse(best.out);
  EXPECT_TRUE(j["fallback"].get<bool>());
  EXPECT_EQ(j["source_workload"], "gemm:m=32,n=32,k=32");
  EXPECT_GT(j["match_score"].get<double>(), 0);
  EXPECT_LT(j["match_score"].get<double>(), 1);
  EXPECT_NE(j["build_options"].get<std::string>().find("-D M=40"), std::string::npos) << j["build_options"];

  // Measured with every knob pinned to the fallback: it compiles, runs and verifies.
  std::string pins;
  const auto values = ParseConfigKey(j["config_key"].get<std::string>());
  ASSERT_TRUE(values);
  for (const auto& [name, value] : *values) {
    std::string text = value.size() == 1 ? std::to_string(value[0]) : "[";
    for (size_t i = 0; value.size() > 1 && i < value.size(); ++i) text += (i ? "," : "") + std::to_string(value[i]);
    pins += " --pin '" + name + "=" + text + (value.size() > 1 ? "]'" : "'");
  }
  const auto check = RunProgram(kProgram + " tune --op gemm --shape 40,32,24 --trials 1 --min-time 0.01 --json" + pins +
                                    " --db " + (dir.path() / "check.db").string(),
                                dir.path());
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  const auto summary = nlohmann::json::parse(check.out);
  EXPECT_EQ(summary["statuses"], nlohmann::json({{"ok", 1}})) << check.out;
  EXPECT_EQ(summary["best"]["config_key"], j["config_key"]);

  // The exact record once this workload has one.
  const auto exact = RunProgram(kProgram + " best --op gemm --shape 32,32,32 --db " + db.string(), dir.path());
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_FALSE(nlohmann::json::parse(exact.out)["fallback"].get<bool>());
  EXPECT_EQ(Sql(db, "SELECT max(gflops) FROM trials WHERE status = 'ok'"),
            Sql(db, "SELECT gflops FROM trials WHERE config_key = '" +
                        nlohmann::json::parse(exact.out)["config_key"].get<std::string>() + "'"));
}

TEST(WarmStart, BestSaysWhenTheHistoryHasNothingUsable) {
  ScratchDir dir;
  const auto db = dir.path() / "history.db";
  TuneHistory(dir, db);
  const auto none = RunProgram(kProgram +
                                   " best --op conv2d --shape n=1,ci=4,h=8,w=8,co=4,kh=3,kw=3,stride=1,pad=1"
                                   " --db " +
                                   db.string(),
                               dir.path());
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no usable history for conv2d"), std::string::npos) << none.err;
  EXPECT_TRUE(none.out.empty());

  const auto missing = dir.path() / "missing.db";
  const auto bad = RunProgram(kProgram + " best --op gemm --shape 8,8,8 --db " + missing.string(), dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("does not exist"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

}  // namespace
}  // namespace tt
