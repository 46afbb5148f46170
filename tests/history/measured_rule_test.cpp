// The rule of which records count as measured (history/measured_rule.h) is kept by the SQLite
// store and by the in-memory history the engine's tests run on: the same records give both the
// same measured configs, so the two cannot drift apart again.
#include "history/measured_rule.h"

#include <gtest/gtest.h>

#include "history/history_test_support.h"
#include "history/in_memory_history.h"

namespace tt {
namespace {

using testing::FailedTrial;
using testing::OkTrial;

TrialRecord Transient(const std::string& key, MeasureStatus status) {
  TrialRecord r = FailedTrial(key, status);
  r.result.transient = true;
  return r;
}

// Two runs: "hang" times out transiently in both (hanging), "once" in one, "lost" has a transient
// runtime error, "slow" a final timeout.
void RecordTwoRuns(TrialHistory& history, const TaskIds& task) {
  history.RecordBatch(
      history.BeginRun(task, {}), task,
      {OkTrial("ok", {1e-3}), Transient("hang", MeasureStatus::kTimeout), Transient("once", MeasureStatus::kTimeout),
       Transient("lost", MeasureStatus::kRuntimeError), FailedTrial("slow", MeasureStatus::kTimeout)});
  history.RecordBatch(history.BeginRun(task, {}), task, {Transient("hang", MeasureStatus::kTimeout)});
}

std::vector<std::string> Keys(const std::vector<MeasuredConfig>& measured) {
  std::vector<std::string> keys;
  for (const auto& m : measured) keys.push_back(m.config_key + ":" + std::string(ToString(m.status)));
  return keys;
}

TEST(MeasuredRule, TheDatabaseAndTheInMemoryHistoryCountTheSameRecords) {
  testing::TempDir dir;
  auto store = SqliteHistoryStore::Open(dir.File("h.db"));
  const TaskIds stored = testing::GemmTask(*store);
  testing::InMemoryHistory memory;
  const TaskIds held = memory.AddTask(testing::GemmWorkload(), testing::GemmTemplate(), testing::CpuDevice());
  RecordTwoRuns(*store, stored);
  RecordTwoRuns(memory, held);

  const std::vector<std::string> expected = {"ok:ok", "slow:timeout", "hang:timeout"};
  EXPECT_EQ(Keys(store->MeasuredConfigs(stored)), expected);
  EXPECT_EQ(Keys(memory.MeasuredConfigs(held)), expected);
  const std::vector<std::string> retried = {"ok:ok", "slow:timeout"};
  EXPECT_EQ(Keys(store->MeasuredConfigs(stored, /*retry_transient=*/true)), retried);
  EXPECT_EQ(Keys(memory.MeasuredConfigs(held, /*retry_transient=*/true)), retried);
}

TEST(MeasuredRule, OnlyTheSecondTransientTimeoutOfAConfigCounts) {
  MeasuredRule rule(false);
  EXPECT_TRUE(rule.Counts("a", MeasureStatus::kOk, false));
  EXPECT_FALSE(rule.Counts("b", MeasureStatus::kTimeout, true));
  EXPECT_FALSE(rule.Counts("c", MeasureStatus::kTimeout, true));
  EXPECT_TRUE(rule.Counts("b", MeasureStatus::kTimeout, true));
  EXPECT_FALSE(rule.Counts("b", MeasureStatus::kTimeout, true));  // a third adds nothing
  EXPECT_FALSE(rule.Counts("d", MeasureStatus::kRuntimeError, true));
  MeasuredRule retry(true);
  EXPECT_FALSE(retry.Counts("b", MeasureStatus::kTimeout, true));
  EXPECT_FALSE(retry.Counts("b", MeasureStatus::kTimeout, true));
}

}  // namespace
}  // namespace tt
