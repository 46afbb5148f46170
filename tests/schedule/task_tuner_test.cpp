#include "schedule/task_tuner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "history/in_memory_history.h"
#include "schedule/schedule_test_support.h"

namespace tt {
namespace {

using testing::CpuDevice;
using testing::InMemoryHistory;

// TuneTask on a history held in memory: the engine reads and writes only TrialHistory.
class TuneTaskInMemory : public ::testing::Test {
 protected:
  InMemoryHistory history;
  const KernelTemplate& gemm = *FindTemplate("gemm_tiled");
  FakeMeasurer fake{testing::IndexGflops};

  struct Task {
    std::unique_ptr<TuningTask> task;
    TemplateRef ref;
    TaskIds ids;
  };
  Task Make(const Workload& workload) {
    ConfigSpace space = gemm.Space(workload, testing::kLimits);
    Task t;
    t.ref = TemplateRefOf(gemm, space);
    t.ids = history.AddTask(workload, t.ref, CpuDevice());
    t.task = std::make_unique<TuningTask>(&gemm, workload, std::move(space));
    return t;
  }
  static TaskTuneOptions Options(const std::string& tuner, int64_t trials) {
    TaskTuneOptions o;
    o.tuner = tuner;
    o.trials = trials;
    o.batch_size = 5;
    o.command = "test";
    return o;
  }
  std::set<std::string> Keys(const TaskIds& ids) const {
    std::set<std::string> keys;
    for (const auto& t : history.Trials(ids)) keys.insert(t.config_key);
    return keys;
  }
  const Workload small = Workload::FromKey("gemm:m=16,n=16,k=16");
};

TEST_F(TuneTaskInMemory, EachRunIsRecordedAndALaterOneMeasuresNothingTwice) {
  TaskIds ids;
  for (int run = 0; run < 2; ++run) {
    Task t = Make(small);
    ids = t.ids;
    int batches = 0;
    const TaskTuneReport report = TuneTask(history, fake, *t.task, t.ids, t.ref, Options("random", 12), nullptr,
                                           [&](const TuningTask&, const auto&, const auto&) { ++batches; });
    EXPECT_EQ(report.end.measured, 12);
    EXPECT_EQ(batches, 3);  // 5 + 5 + 2
    EXPECT_TRUE(report.warm_start.empty());
    EXPECT_EQ(history.run(report.run_id).status, "finished");
    EXPECT_EQ(history.run(report.run_id).info.tuner, "random");
    EXPECT_EQ(history.run(report.run_id).info.trials_requested, 12);
  }
  EXPECT_EQ(history.Trials(ids).size(), 24u);
  EXPECT_EQ(Keys(ids).size(), 24u);
}

TEST_F(TuneTaskInMemory, AutoGoesOnFromTheExactHistoryOfTheTask) {
  Task first = Make(small);
  TuneTask(history, fake, *first.task, first.ids, first.ref, Options("random", 10), nullptr);
  Task again = Make(small);
  const TaskTuneReport report = TuneTask(history, fake, *again.task, again.ids, again.ref, Options("auto", 6), nullptr);
  EXPECT_EQ(report.warm_start.rfind("auto: exact history (10 trials of this task", 0), 0u) << report.warm_start;
  EXPECT_EQ(history.run(report.run_id).info.tuner, "auto-gga");
  EXPECT_EQ(report.end.measured, 6);
  EXPECT_EQ(Keys(again.ids).size(), 16u);
  ASSERT_TRUE(again.task->best());  // the history's best counts from the start
  EXPECT_LE(again.task->best()->time_s, history.Best(first.ids)->result.time_s);
}

TEST_F(TuneTaskInMemory, AutoOnANewWorkloadReadsTheRecordsOfTheOperatorsOthers) {
  Task recorded = Make(small);
  TuneTask(history, fake, *recorded.task, recorded.ids, recorded.ref, Options("random", 20), nullptr);
  Task fresh = Make(Workload::FromKey("gemm:m=16,n=16,k=32"));
  const TaskTuneReport report = TuneTask(history, fake, *fresh.task, fresh.ids, fresh.ref, Options("auto", 6), nullptr);
  EXPECT_NE(report.warm_start.find("among 1 recorded workloads, "), std::string::npos) << report.warm_start;
  EXPECT_EQ(report.warm_start.find("exact history"), std::string::npos) << report.warm_start;
  EXPECT_EQ(report.end.measured, 6);
  EXPECT_EQ(history.Trials(fresh.ids).size(), 6u);
}

TEST_F(TuneTaskInMemory, ABrokenEnvironmentMarksTheRunFailedAndKeepsWhatWasMeasured) {
  testing::FailingMeasurer measurer(7, MeasuredBatch::End::kBrokenEnvironment);
  Task t = Make(small);
  EXPECT_THROW(TuneTask(history, measurer, *t.task, t.ids, t.ref, Options("random", 20), nullptr), EnvironmentError);
  ASSERT_EQ(history.run_count(), 1u);
  EXPECT_EQ(history.run(1).status, "failed");
  EXPECT_EQ(history.run(1).error, "the worker program is gone");
  EXPECT_EQ(history.Trials(t.ids).size(), 7u);
  EXPECT_EQ(history.Claim(99, t.ids, {history.Trials(t.ids).front().config_key}), std::vector<bool>{false});
}

// After the search the leaders are timed again: a machine that was fast for the first
// measurement of every config (the measurer's first answers are twice as fast as the rest).
TEST_F(TuneTaskInMemory, TheLeadersAreTimedAgainAndTheirRecordsKeepEveryRepeat) {
  std::map<std::string, int> seen;
  FakeMeasurer drifting([&](const ConfigSpace& space, const Config& c) {
    return testing::IndexGflops(space, c) * (seen[space.Key(c)]++ == 0 ? 2 : 1);
  });
  for (const double share : {0.0, 0.25}) {
    seen.clear();
    InMemoryHistory fresh;
    Task t = Make(small);
    t.ids = fresh.AddTask(small, t.ref, CpuDevice());
    TaskTuneOptions o = Options("random", 24);
    o.retime_share = share;
    const TaskTuneReport report = TuneTask(fresh, drifting, *t.task, t.ids, t.ref, o, nullptr);
    EXPECT_EQ(report.end.measured, 24);
    EXPECT_EQ(fresh.Trials(t.ids).size(), 24u);  // re-timings are not trials
    ASSERT_TRUE(report.best_before_retiming);
    if (share == 0) {
      EXPECT_EQ(report.retimed.measurements, 0);
      continue;
    }
    EXPECT_EQ(report.retimed.measurements, 3 * kRetimeRounds);  // 6 of 24 allow three leaders
    int64_t retimed = 0;
    for (const TrialRecord& r : fresh.Trials(t.ids)) {
      if (r.result.times_s.size() == 3) continue;
      ++retimed;
      EXPECT_EQ(r.result.times_s.size(), 9u);
      EXPECT_EQ(seen[r.config_key], 1 + kRetimeRounds);
      // Three fast repeats and six at the true speed: the median is the true time.
      EXPECT_DOUBLE_EQ(r.result.time_s, r.result.times_s.back());
    }
    EXPECT_EQ(retimed, 3);
    // The task's best is the best record now, slower than the lucky first look.
    ASSERT_TRUE(t.task->best());
    EXPECT_DOUBLE_EQ(t.task->best()->time_s, fresh.Best(t.ids)->result.time_s);
    EXPECT_GT(t.task->best()->time_s, report.best_before_retiming->time_s);
  }
}

TEST_F(TuneTaskInMemory, OptionsOutOfRangeAreRefusedBeforeARunIsRecorded) {
  Task t = Make(small);
  TaskTuneOptions o = Options("random", 0);
  EXPECT_THROW(TuneTask(history, fake, *t.task, t.ids, t.ref, o, nullptr), UserError);
  o = Options("random", 10);
  o.batch_size = 0;
  EXPECT_THROW(TuneTask(history, fake, *t.task, t.ids, t.ref, o, nullptr), UserError);
  o = Options("random", 10);
  o.retime_share = 2;
  EXPECT_THROW(TuneTask(history, fake, *t.task, t.ids, t.ref, o, nullptr), UserError);
  EXPECT_EQ(history.run_count(), 0u);
}

// Other devices' records of the task: a tuner that uses them says where they came from; one
// that cannot says so, and starts cold.
TEST_F(TuneTaskInMemory, ATunerThatCannotUseOtherDevicesRecordsSaysSo) {
  CrossDeviceStart cross;
  DeviceInfo other = CpuDevice();
  other.name = "Other device";
  cross.sources.push_back({other, {}, 0.5, 1});
  const Task probe = Make(small);
  const ConfigSpace& space = probe.task->space();
  cross.warm_start.transfer.push_back({*ParseConfigKey(space.Key(space.FromIndex(0))), {}, 10, 0.5, 0});
  for (const std::string tuner : {"random", "ga"}) {
    Task t = Make(small);
    TaskTuneOptions o = Options(tuner, 5);
    o.cross_device = &cross;
    const TaskTuneReport report = TuneTask(history, fake, *t.task, t.ids, t.ref, o, nullptr);
    const bool says_cannot = report.warm_start.find(tuner + " cannot use warm-start records") != std::string::npos;
    EXPECT_EQ(says_cannot, tuner == "random") << report.warm_start;
    EXPECT_NE(report.warm_start.find("Other device (similarity 0.50"), std::string::npos) << report.warm_start;
  }
}

}  // namespace
}  // namespace tt
