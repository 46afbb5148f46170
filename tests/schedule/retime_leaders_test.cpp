#include "schedule/retime_leaders.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "schedule/network_tuner.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::TempDir;
using testing::Tiny;

NetworkTuneOptions Options(double retime_share) {
  NetworkTuneOptions o;
  o.trials = 40;
  o.tuner = "random";
  o.batch_size = 4;
  o.command = "test";
  o.retime_share = retime_share;
  return o;
}

// A config's true speed is IndexGflops; the first time one of every four configs is timed, the
// machine is in a fast moment and it looks three times faster (what tuning's least-of-many
// records are prone to). `answer` may turn a later measurement into another result.
class LuckyFirstMeasurer : public Measurer {
 public:
  using Answer = std::function<std::optional<MeasureResult>(const std::string& key, int times_measured)>;
  explicit LuckyFirstMeasurer(Answer answer = {}) : answer_(std::move(answer)) {}

  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch, const std::atomic<bool>*) override {
    const double flops = task.kernel->Flops(task.workload);
    MeasuredBatch measured;
    for (const Config& config : batch) {
      const std::string key = task.workload.Key() + "|" + task.space->Key(config);
      const int before = seen_[key]++;
      if (answer_)
        if (auto result = answer_(key, before)) {
          measured.results.push_back(*result);
          continue;
        }
      const bool lucky = before == 0 && task.space->ToIndex(config) % 4 == 0;
      const double t = flops / (TrueGflops(*task.space, config) * (lucky ? 3 : 1) * 1e9);
      measured.results.push_back(MeasureResult::Success({t, t, t}, flops, 0));
    }
    return measured;
  }
  static double TrueGflops(const ConfigSpace& space, const Config& c) { return testing::IndexGflops(space, c); }
  int Times(const std::string& key) const { return seen_.count(key) ? seen_.at(key) : 0; }

 private:
  Answer answer_;
  std::map<std::string, int> seen_;
};

struct Trial {
  std::string workload, config_key, status, error;
  size_t repeats = 0;
  double time_s = 0, gflops = 0, flops = 0;
};

std::vector<Trial> Trials(const std::string& db) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  SQLite::Statement q(d,
                      "SELECT w.key, t.config_key, t.status, coalesce(t.error, ''), t.times_json, t.time_s, "
                      "t.gflops, w.flops FROM trials t JOIN workloads w ON w.id = t.workload_id ORDER BY t.id");
  std::vector<Trial> trials;
  while (q.executeStep())
    trials.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getString(),
                      q.getColumn(3).getString(), nlohmann::json::parse(q.getColumn(4).getString()).size(),
                      q.getColumn(5).getDouble(), q.getColumn(6).getDouble(), q.getColumn(7).getDouble()});
  return trials;
}

double LastProgress(const std::string& db) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  return d.execAndGet("SELECT latency_s FROM network_progress ORDER BY trials DESC LIMIT 1").getDouble();
}

TEST(RetimeLeaders, LuckyRecordsOfTheLeadersGiveWayToTheirTimesSideBySide) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  LuckyFirstMeasurer measurer;
  const auto report = TuneNetwork(*store, measurer, CpuDevice(), testing::kLimits, Tiny(), Options(1.0), nullptr);
  EXPECT_EQ(report.trials_used, 40);  // re-timings are not trials
  EXPECT_EQ(report.retimed.tasks, 2);
  EXPECT_GT(report.retimed.measurements, 0);
  EXPECT_EQ(report.retimed.failed, 0);
  // Tuning's best was a lucky record (every task's fastest-looking config is one of them here):
  // timed again, the estimate rises to what the configs really take.
  EXPECT_GT(report.LatencyS(), report.retimed.latency_before_s * 1.2);
  EXPECT_DOUBLE_EQ(LastProgress(db), report.LatencyS());
  int64_t retimed = 0;
  for (const Trial& t : Trials(db)) {
    ASSERT_EQ(t.status, "ok");
    if (t.repeats == 3) continue;
    ++retimed;
    EXPECT_EQ(t.repeats, 3u * (1 + kRetimeRounds)) << t.config_key;  // every repeat kept
    // Three lucky repeats against six true ones: the median is the true time.
    EXPECT_DOUBLE_EQ(measurer.Times(t.workload + "|" + t.config_key), 1 + kRetimeRounds);
    EXPECT_NEAR(t.gflops, t.flops / t.time_s / 1e9, 1e-9 * t.gflops);
  }
  EXPECT_EQ(retimed * kRetimeRounds, report.retimed.measurements);
  // The best each task reports is its best record now.
  for (const auto& task : report.tasks) {
    const auto best = task.Best();
    ASSERT_TRUE(best);
    double fastest = 1e9;
    for (const Trial& t : Trials(db))
      if (t.workload == task.task.workload.Key()) fastest = std::min(fastest, t.time_s);
    EXPECT_DOUBLE_EQ(best->second.time_s, fastest);
  }
}

TEST(RetimeLeaders, AShareOfZeroTimesNothingAgainAndASmallShareTimesNoMoreThanItAllows) {
  for (const double share : {0.0, 0.1}) {
    TempDir dir;
    const std::string db = dir.File("h.db");
    auto store = SqliteHistoryStore::Open(db);
    LuckyFirstMeasurer measurer;
    const auto report = TuneNetwork(*store, measurer, CpuDevice(), testing::kLimits, Tiny(), Options(share), nullptr);
    EXPECT_EQ(report.trials_used, 40);
    if (share == 0) {
      EXPECT_EQ(report.retimed.measurements, 0);
      for (const Trial& t : Trials(db)) EXPECT_EQ(t.repeats, 3u);
      EXPECT_DOUBLE_EQ(report.LatencyS(), LastProgress(db));
      continue;
    }
    EXPECT_GE(report.retimed.tasks, 1);  // 4 re-timings: the heaviest task's first
    EXPECT_GT(report.retimed.measurements, 0);
    EXPECT_LE(report.retimed.measurements, 4);
  }
}

TEST(RetimeLeaders, ALeaderWhoseAnswerIsNowWrongIsRecordedAsFailedAndLosesItsPlace) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  // Every config answers wrong when timed a second time: each task's leaders all fail, so its
  // best becomes its fastest config that was not a leader.
  LuckyFirstMeasurer measurer([](const std::string&, int times) -> std::optional<MeasureResult> {
    if (times == 1) return MeasureResult::Failure(MeasureStatus::kWrongAnswer, "max error 0.5");
    return std::nullopt;
  });
  const auto report = TuneNetwork(*store, measurer, CpuDevice(), testing::kLimits, Tiny(), Options(1.0), nullptr);
  EXPECT_GT(report.retimed.failed, 0);
  EXPECT_EQ(report.retimed.failed, report.retimed.measurements);  // no second round for a failure
  int64_t failed = 0;
  for (const Trial& t : Trials(db)) {
    if (t.status == "ok") continue;
    ++failed;
    EXPECT_EQ(t.status, "wrong_answer");
    EXPECT_NE(t.error.find("timed again after tuning: max error 0.5"), std::string::npos);
    EXPECT_EQ(t.time_s, 0);
    EXPECT_EQ(t.repeats, 3u);  // the repeats of its first measurement stay
    for (const auto& task : report.tasks)
      if (task.task.workload.Key() == t.workload) {
        EXPECT_NE(task.Best()->second.config_key, t.config_key);
      }
  }
  EXPECT_EQ(failed, report.retimed.failed);
}

TEST(RetimeLeaders, ATransientFailureOrAnUnknownConfigChangesNoRecord) {
  TempDir dir;
  const std::string db = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(db);
  LuckyFirstMeasurer measurer;
  TuneNetwork(*store, measurer, CpuDevice(), testing::kLimits, Tiny(), Options(0), nullptr);
  const std::vector<Trial> before = Trials(db);
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  SQLite::Statement first(d, "SELECT workload_id, template_id, device_id FROM trials ORDER BY id LIMIT 1");
  ASSERT_TRUE(first.executeStep());
  const TaskIds ids{first.getColumn(0).getInt64(), first.getColumn(1).getInt64(), first.getColumn(2).getInt64()};
  MeasureResult transient = MeasureResult::Failure(MeasureStatus::kTimeout, "the machine was loaded");
  transient.transient = true;
  EXPECT_FALSE(store->Retime(ids, before.front().config_key, transient));
  EXPECT_FALSE(store->Retime(ids, "no such config", MeasureResult::Success({1, 1, 1}, 1e9, 0)));
  const std::vector<Trial> after = Trials(db);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].repeats, before[i].repeats);
    EXPECT_EQ(after[i].time_s, before[i].time_s);
    EXPECT_EQ(after[i].status, before[i].status);
  }
}

TEST(RetimeLeaders, AShareOutsideZeroToOneIsRefused) {
  TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  LuckyFirstMeasurer measurer;
  for (const double share : {-0.1, 1.5}) {
    try {
      TuneNetwork(*store, measurer, CpuDevice(), testing::kLimits, Tiny(), Options(share), nullptr);
      ADD_FAILURE() << share;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--retime-share"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace tt
