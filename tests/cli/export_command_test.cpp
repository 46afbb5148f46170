// `tensortune export`: AutoTVM logs that import back to the same trials, CSV and JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "recorded_space.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RecordSyntheticSpace;
using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;
const std::string kSample = std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log";

// A local GEMM space with a failed trial, plus TopHub's conv records on their imported devices.
std::string MixedHistory(const std::filesystem::path& dir) {
  double best = 0;
  const std::string db = RecordSyntheticSpace(dir, 12, &best);
  auto store = SqliteHistoryStore::Open(db);
  const Workload w = ParseWorkload("gemm", "16,16,16");
  DeviceInfo device{"Test platform", "recorded-cpu", "1.0", "cpu", 2, 4096, 512 * 1024, 1 << 30};
  const TaskIds ids = store->EnsureTask(w, 1, {"gemm_tiled", "gemm", GemmTiledTemplate().SourceHash()}, device);
  const ConfigSpace space = GemmTiledTemplate().Space(w, {4096, 512 * 1024});
  TrialRecord failed{space.Key(space.FromIndex(1)),
                     space.ToJson(space.FromIndex(1)),
                     MeasureResult::Failure(MeasureStatus::kWrongAnswer, "differs"),
                     0,
                     0,
                     "",
                     ""};
  failed.result.compile_s = 0.25;
  store->RecordBatch(store->BeginRun(ids, {"random", "", 1, "test", 1}), ids, {failed});
  return db;
}

using TrialKey = std::tuple<std::string, std::string, std::string, std::string, std::vector<double>, std::string>;

std::multiset<TrialKey> TrialsOf(const std::string& db) {
  std::multiset<TrialKey> keys;
  for (const auto& t : SqliteHistoryStore::Open(db)->TrialsWithTasks({}))
    keys.insert({t.workload.Key(), t.kernel_template.name, t.trial.config_key,
                 std::string(ToString(t.trial.result.status)), t.trial.result.times_s, t.trial.finished_at});
  return keys;
}

TEST(ExportCommand, AnAutoTvmExportImportsBackRecordForRecord) {
  ScratchDir dir;
  const std::string db = MixedHistory(dir.path());
  ASSERT_EQ(RunProgram(kProgram + " import " + kSample + " --db " + db, dir.path()).exit_code, 0);
  const auto log = dir.path() / "out.log";
  const auto exported = RunProgram(kProgram + " export --db " + db + " --out " + log.string(), dir.path());
  ASSERT_EQ(exported.exit_code, 0) << exported.err;

  const std::string copy = (dir.path() / "copy.db").string();
  const auto imported = RunProgram(kProgram + " import " + log.string() + " --db " + copy, dir.path());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("0 skipped, 0 bad"), std::string::npos) << imported.out;
  const auto original = TrialsOf(db);
  EXPECT_EQ(original.size(), 13u + 22u);  // 12 + 1 GEMM trials, the sample's 22 consistent records
  EXPECT_EQ(TrialsOf(copy), original);
  // The local device comes back as an imported one, named as the log names it.
  const auto devices = SqliteHistoryStore::Open(copy)->TrialsWithTasks({"gemm", "", 0, "opencl -device=recorded-cpu"});
  ASSERT_EQ(devices.size(), 13u);
  EXPECT_TRUE(devices[0].device.imported);
}

TEST(ExportCommand, CsvAndJsonHoldOneRowPerTrialAndFiltersApply) {
  ScratchDir dir;
  const std::string db = MixedHistory(dir.path());
  const auto csv = RunProgram(kProgram + " export --format csv --op gemm --db " + db, dir.path());
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header.substr(0, 25), "trial_id,run_id,tuner,op,");
  int rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, 13);

  const auto json = RunProgram(kProgram + " export --format json --run 2 --db " + db, dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0]["status"], "wrong_answer");
  EXPECT_EQ(parsed[0]["error"], "differs");
  EXPECT_TRUE(parsed[0]["config"].is_array());
}

TEST(ExportCommand, T4ResultsNameTheConfigurationAndTheOutcome) {
  ScratchDir dir;
  const std::string db = MixedHistory(dir.path());
  const auto r = RunProgram(kProgram + " export --format t4 --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t4 = nlohmann::json::parse(r.out);
  EXPECT_EQ(t4["schema_version"], "1.0.0");
  ASSERT_EQ(t4["results"].size(), 13u);
  const auto& ok = t4["results"][0];
  EXPECT_EQ(ok["invalidity"], "correct");
  EXPECT_TRUE(ok["configuration"]["tile_x"].is_array());
  EXPECT_EQ(ok["measurements"][0]["unit"], "ms");
  EXPECT_DOUBLE_EQ(ok["measurements"][0]["value"].get<double>(), ok["times"]["runtimes"][0].get<double>());
  const auto& failed = t4["results"][12];
  EXPECT_EQ(failed["invalidity"], "correctness");
  EXPECT_EQ(failed["correctness"], 0);
  EXPECT_TRUE(failed["measurements"].empty());
}

TEST(ExportCommand, RefusesAnUnknownFormatAndAMissingDatabase) {
  ScratchDir dir;
  const std::string db = MixedHistory(dir.path());
  auto r = RunProgram(kProgram + " export --format xml --db " + db + " --out x.txt", dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown --format 'xml'"), std::string::npos) << r.err;
  r = RunProgram(kProgram + " export --db " + (dir.path() / "none.db").string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "none.db"));
}

}  // namespace
}  // namespace tt
