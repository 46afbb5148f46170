// tune-network's first round: every task gets its best guess measured (never the untuned
// template default unless asked), heaviest tasks first; with fewer trials than tasks the rest
// are labelled unmeasured, in the report and in network_tasks.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "ops/starting_config.h"
#include "schedule/network_tuner.h"
#include "schedule/schedule_test_support.h"
#include "space/config_adapt.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::TempDir;

// Three tasks of one operator, each with one sketch (more than 8 rows), heaviest last:
// weight x FLOPs of 1x(16*16*16), 1x(32*16*16), 2x(64*32*16).
const Network& Three() {
  static const Network net = ParseNetwork(R"({"name": "three", "layers": [
  {"name": "small", "op": "gemm", "shape": "{batch*16},16,16"},
  {"name": "middle", "op": "gemm", "shape": "{batch*32},16,16"},
  {"name": "big", "op": "gemm", "shape": "{batch*64},32,16", "repeat": 2}]})",
                                          "three");
  return net;
}

NetworkTuneOptions Options(int64_t trials) {
  NetworkTuneOptions o;
  o.trials = trials;
  o.tuner = "random";
  o.batch_size = 4;
  o.command = "test";
  return o;
}

std::vector<std::string> Column(const std::string& db, const std::string& sql) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  SQLite::Statement q(d, sql);
  std::vector<std::string> values;
  while (q.executeStep()) values.push_back(q.getColumn(0).isNull() ? "NULL" : q.getColumn(0).getString());
  return values;
}

// The untiled default config's key in the task's space.
std::string UntiledKey(const Workload& workload) {
  const KernelTemplate& kernel = PickTemplate(workload, "gemm_tiled");
  const ConfigSpace space = kernel.Space(workload, testing::kLimits);
  return space.Key(UntiledConfig(space));
}

TEST(FirstRound, EveryTaskRunsAMeasuredGuessNotItsUntunedDefault) {
  for (const int64_t trials : {3, 4, 20}) {  // the task count, one more, several rounds
    TempDir dir;
    const std::string db = dir.File("h.db");
    auto store = SqliteHistoryStore::Open(db);
    FakeMeasurer fake{testing::IndexGflops};
    const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Three(), Options(trials), nullptr);
    ASSERT_EQ(report.tasks.size(), 3u);
    EXPECT_EQ(report.TasksUnmeasured(), 0) << trials;
    EXPECT_EQ(report.TasksUnknown(), 0) << trials;
    for (const auto& t : report.tasks) {
      ASSERT_TRUE(t.Best()) << trials;
      ASSERT_TRUE(t.first) << trials;
      EXPECT_FALSE(t.default_time_s) << "measured only with measure_default";
      EXPECT_NE(t.first->config_key, UntiledKey(t.task.workload)) << trials;
      EXPECT_FALSE(t.Unmeasured());
    }
    // The first round's trials (one per task here) are none of them an untiled default.
    const auto first_round = Column(db,
                                    "SELECT t.config_key FROM trials t JOIN runs r ON r.id = t.run_id "
                                    "WHERE r.tuner = 'first-round'");
    EXPECT_EQ(first_round.size(), 3u) << trials;
    for (const auto& t : report.tasks)
      EXPECT_EQ(std::count(first_round.begin(), first_round.end(), UntiledKey(t.task.workload)), 0);
    EXPECT_EQ(Column(db, "SELECT count(*) FROM network_tasks WHERE unmeasured = 0 AND first_config IS NOT NULL"),
              std::vector<std::string>{"3"});
    EXPECT_EQ(Column(db, "SELECT count(*) FROM network_tasks WHERE default_time_s IS NOT NULL"),
              std::vector<std::string>{"0"});
    // The anytime curve starts after the first round.
    EXPECT_EQ(Column(db, "SELECT min(trials) FROM network_progress"), std::vector<std::string>{"3"});
  }
}

TEST(FirstRound, TheUntunedDefaultIsMeasuredOnlyWhenAsked) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  NetworkTuneOptions o = Options(12);
  o.measure_default = true;
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Three(), o, nullptr);
  for (const auto& t : report.tasks) {
    EXPECT_TRUE(t.default_time_s);
    EXPECT_TRUE(t.Best());
  }
  EXPECT_GT(report.DefaultLatencyS(), 0);
  EXPECT_EQ(Column(db, "SELECT count(*) FROM network_tasks WHERE default_time_s > 0"), std::vector<std::string>{"3"});
}

TEST(FirstRound, WithFewerTrialsThanTasksTheHeaviestAreMeasuredAndTheOthersLabelled) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Three(), Options(2), nullptr);
  ASSERT_EQ(report.tasks.size(), 3u);
  EXPECT_EQ(report.trials_used, 2);
  EXPECT_EQ(report.TasksUnmeasured(), 1);
  // Tasks in network order: small, middle, big; big and middle are the heaviest two.
  EXPECT_TRUE(report.tasks[0].Unmeasured());
  EXPECT_FALSE(report.tasks[1].Unmeasured());
  EXPECT_FALSE(report.tasks[2].Unmeasured());
  ASSERT_TRUE(report.tasks[0].first);
  EXPECT_FALSE(report.tasks[0].first->config_key.empty());
  EXPECT_EQ(Column(db, "SELECT task_index FROM network_tasks WHERE unmeasured = 1"), std::vector<std::string>{"0"});
  EXPECT_EQ(Column(db, "SELECT count(*) FROM network_tasks WHERE first_config IS NOT NULL"),
            std::vector<std::string>{"3"});
  // The unmeasured task's config is the transfer from the tasks measured before it.
  EXPECT_EQ(report.tasks[0].first->source.rfind("transferred from gemm:", 0), 0u) << report.tasks[0].first->source;
}

// Earlier history: a workload like the new one (m=64) and one unlike it.
const Network& Earlier() {
  static const Network earlier = ParseNetwork(R"({"name": "earlier", "layers": [
  {"name": "like", "op": "gemm", "shape": "64,32,16"},
  {"name": "unlike", "op": "gemm", "shape": "12,48,80"}]})",
                                              "earlier");
  return earlier;
}

const Network& Next() {
  static const Network next =
      ParseNetwork(R"({"name": "next", "layers": [{"name": "new", "op": "gemm", "shape": "64,32,32"}]})", "next");
  return next;
}

// `Next` tuned with `trials` after `Earlier` with 40, in one database.
NetworkRunReport NextAfterEarlier(const std::string& db, int64_t trials) {
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Earlier(), Options(40), nullptr);
  return TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, Next(), Options(trials), nullptr);
}

TEST(FirstRound, AGuessComesFromTheMostSimilarMeasuredWorkload) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  const auto report = NextAfterEarlier(db, 1);
  ASSERT_EQ(report.tasks.size(), 1u);
  ASSERT_TRUE(report.tasks[0].first);
  const auto& first = *report.tasks[0].first;
  EXPECT_EQ(first.source.rfind("transferred from gemm:m=64,n=32,k=16 ", 0), 0u) << first.source;
  // It is one of that workload's recorded configs, adapted to the new shape.
  const Workload like = ParseWorkload("gemm", "64,32,16");
  const Workload target = ParseWorkload("gemm", "64,32,32");
  const ConfigSpace space = PickTemplate(target, "gemm_tiled").Space(target, testing::kLimits);
  bool found = false;
  for (const auto& key : Column(db,
                                "SELECT t.config_key FROM trials t JOIN workloads w ON w.id = t.workload_id "
                                "WHERE w.key = '" +
                                    like.Key() + "'")) {
    const auto adapted = AdaptConfig(space, *ParseConfigKey(key));
    if (adapted && space.Key(adapted->config) == first.config_key) found = true;
  }
  EXPECT_TRUE(found) << first.config_key;
  EXPECT_TRUE(report.tasks[0].Best());  // and it was measured
}

// History recorded with older kernels can transfer worse than the device's start: with two
// trials per task, the first round measures the best transfer and the start, and keeps the
// faster.
TEST(FirstRound, WithTwoTrialsPerTaskItMeasuresTheTransferAndTheDeviceStartAndKeepsTheFaster) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  const auto report = NextAfterEarlier(db, 2);
  ASSERT_TRUE(report.tasks.at(0).first);
  const std::string query =
      "SELECT t.config_key FROM trials t JOIN workloads w ON w.id = t.workload_id JOIN runs r ON r.id = t.run_id "
      "WHERE r.tuner = 'first-round' AND w.key = '" +
      report.tasks[0].task.workload.Key() + "' ORDER BY ";
  const auto measured = Column(db, query + "t.id");
  ASSERT_EQ(measured.size(), 2u);
  const Workload target = report.tasks[0].task.workload;
  const ConfigSpace space = PickTemplate(target, "gemm_tiled").Space(target, testing::kLimits);
  const auto start = DeviceStartingConfig(PickTemplate(target, "gemm_tiled"), space, CpuDevice());
  ASSERT_TRUE(start);
  EXPECT_EQ(measured[1], space.Key(start->config)) << "the start, after the best transfer";
  EXPECT_NE(measured[0], measured[1]);
  EXPECT_EQ(report.tasks[0].first->config_key, Column(db, query + "t.time_s")[0]) << "the faster of the two";
}

// A transfer carries the source's values that were chosen for its shape; they are fitted to the
// new one: gemm_rows' columns per work-item, from 4096 columns (any vectors per work-item
// divide them) to 1000 (none of 64 or more do: as few as make 32).
TEST(FirstRound, ATransferredConfigIsFittedToTheNewShape) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  // gemm_rows measures faster than gemm_tiled, as on a CPU, the more so the more columns each
  // work-item computes: the best record has 128 (vectors of 16 on this device), which 1000 does
  // not divide.
  FakeMeasurer fake{FakeMeasurer::GflopsFunction([](const ConfigSpace& space, const Config& c) {
    if (!space.HasKnob("nv")) return testing::IndexGflops(space, c);
    return 100.0 + static_cast<double>(space.Scalar(c, "vec") * space.Scalar(c, "nv")) +
           testing::IndexGflops(space, c) / 100;
  })};
  const Network wide =
      ParseNetwork(R"({"name": "wide", "layers": [{"name": "fc", "op": "gemm", "shape": "1,4096,64"}]})", "wide");
  const Network narrow =
      ParseNetwork(R"({"name": "narrow", "layers": [{"name": "fc", "op": "gemm", "shape": "1,1000,64"}]})", "narrow");
  TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, wide, Options(40), nullptr);
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, narrow, Options(1), nullptr);
  ASSERT_TRUE(report.tasks.at(0).first);
  const auto& first = *report.tasks[0].first;
  EXPECT_EQ(first.template_name, "gemm_rows");
  EXPECT_EQ(first.source.rfind("transferred from gemm:m=1,n=4096,k=64", 0), 0u) << first.source;
  const Workload target = report.tasks[0].task.workload;
  const ConfigSpace space = PickTemplate(target, "gemm_rows").Space(target, testing::kLimits);
  const auto config = space.FromKey(first.config_key);
  ASSERT_TRUE(config) << first.config_key;
  EXPECT_EQ(space.Scalar(*config, "vec") * space.Scalar(*config, "nv"), 32) << first.config_key;
  EXPECT_NE(first.source.find("columns per work-item fitted to N"), std::string::npos) << first.source;
}

TEST(FirstRound, WithNothingMeasuredATaskStartsFromItsDeviceClassConfig) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  FakeMeasurer fake{testing::IndexGflops};
  const Network one =
      ParseNetwork(R"({"name": "one", "layers": [{"name": "g", "op": "gemm", "shape": "64,64,64"}]})", "one");
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, one, Options(1), nullptr);
  ASSERT_TRUE(report.tasks[0].first);
  EXPECT_EQ(report.tasks[0].first->source.rfind("cpu start", 0), 0u) << report.tasks[0].first->source;
  EXPECT_NE(report.tasks[0].first->config_key, UntiledKey(report.tasks[0].task.workload));
}

// A task recorded on another device (here another CPU) but not on this one: its first guess is
// that device's fastest config, and a bo tuner starts primed with that device's records; with
// --warm-from none, neither.
TEST(FirstRound, ATaskRecordedOnAnotherDeviceStartsFromThatDevicesFastestConfig) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  FakeMeasurer fake{testing::IndexGflops};
  const Network one =
      ParseNetwork(R"({"name": "one", "layers": [{"name": "g", "op": "gemm", "shape": "64,64,64"}]})", "one");
  TuneNetwork(*store, fake, CpuDevice("other-cpu"), testing::kLimits, one, Options(40), nullptr);
  const auto fastest = Column(db,
                              "SELECT t.config_key FROM trials t JOIN devices d ON d.id = t.device_id WHERE d.name = "
                              "'other-cpu' AND t.status = 'ok' ORDER BY t.gflops DESC LIMIT 1");
  ASSERT_EQ(fastest.size(), 1u);

  NetworkTuneOptions o = Options(1);
  const auto report = TuneNetwork(*store, fake, CpuDevice(), testing::kLimits, one, o, nullptr);
  ASSERT_TRUE(report.tasks.at(0).first);
  const auto& first = *report.tasks[0].first;
  EXPECT_EQ(first.source.rfind("the fastest of this workload's 40 records on other-cpu", 0), 0u) << first.source;
  EXPECT_EQ(first.config_key, fastest[0]);

  o.trials = 12;
  o.tuner = "bo";
  const auto primed = TuneNetwork(*store, fake, CpuDevice("third-cpu"), testing::kLimits, one, o, nullptr);
  ASSERT_FALSE(primed.tasks.at(0).sketches.empty());
  EXPECT_NE(primed.tasks[0].sketches[0].flow.find("other devices' records of this task"), std::string::npos)
      << primed.tasks[0].sketches[0].flow;

  o.warm_from_devices = false;
  const auto cold = TuneNetwork(*store, fake, CpuDevice("fourth-cpu"), testing::kLimits, one, o, nullptr);
  ASSERT_TRUE(cold.tasks.at(0).first);
  EXPECT_EQ(cold.tasks[0].first->source.rfind("cpu start", 0), 0u) << cold.tasks[0].first->source;
  EXPECT_EQ(cold.tasks[0].sketches.at(0).flow, "");
}

}  // namespace
}  // namespace tt
