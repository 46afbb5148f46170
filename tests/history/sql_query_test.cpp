// Plain SQL on the history: read-only by default, and the documented views.
#include "history/sql_query.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "history/history_test_support.h"

namespace tt {
namespace {

using testing::FailedTrial;
using testing::GemmTask;
using testing::OkTrial;
using testing::TempDir;

// Two runs of one task: random finds 2 ms then 1 ms; grid fails once, then 4 ms.
std::string TwoRuns(const TempDir& dir) {
  const std::string path = dir.File("h.db");
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  const int64_t random = store->BeginRun(task, {"random", "", 1, "test", 3});
  store->RecordBatch(random, task, {OkTrial("a", {2e-3}), OkTrial("b", {3e-3}), OkTrial("c", {1e-3})});
  store->EndRun(random, "finished");
  const int64_t grid = store->BeginRun(task, {"grid", "", 1, "test", 5});
  store->RecordBatch(grid, task, {FailedTrial("d", MeasureStatus::kCompileError), OkTrial("e", {4e-3})});
  store->EndRun(grid, "interrupted");
  return path;
}

std::vector<std::string> Column(const SqlResult& r, size_t column) {
  std::vector<std::string> values;
  for (const auto& row : r.rows) {
    const SqlValue& v = row[column];
    if (const auto* s = std::get_if<std::string>(&v))
      values.push_back(*s);
    else if (const auto* i = std::get_if<int64_t>(&v))
      values.push_back(std::to_string(*i));
    else if (const auto* d = std::get_if<double>(&v))
      values.push_back(std::to_string(*d));
    else
      values.push_back("NULL");
  }
  return values;
}

TEST(SqlQuery, WritesAreRefusedUnlessAllowed) {
  TempDir dir;
  const std::string path = TwoRuns(dir);
  try {
    RunSql(path, "DELETE FROM trials", false);
    FAIL() << "a DELETE ran on a read-only query";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("pass --write"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::get<int64_t>(RunSql(path, "SELECT count(*) FROM trials", false).rows[0][0]), 5);
  EXPECT_THROW(RunSql(path, "SELECT 1; DELETE FROM trials", true), UserError);
  EXPECT_EQ(RunSql(path, "DELETE FROM trials WHERE config_key = 'b'", true).changes, 1);
  EXPECT_EQ(std::get<int64_t>(RunSql(path, "SELECT count(*) FROM trials", false).rows[0][0]), 4);
  EXPECT_THROW(RunSql(dir.File("missing.db"), "SELECT 1", false), UserError);
  EXPECT_FALSE(std::filesystem::exists(dir.File("missing.db")));
}

TEST(SqlQuery, ViewsGiveBestRunsConvergenceAndComparison) {
  TempDir dir;
  const std::string path = TwoRuns(dir);
  auto best = RunSql(path, "SELECT config_key, time_s FROM best_per_task", false);
  ASSERT_EQ(best.rows.size(), 1u);
  EXPECT_EQ(Column(best, 0), std::vector<std::string>{"c"});

  auto runs = RunSql(
      path, "SELECT tuner, trials_requested, status, trials, ok_trials, best_time_s FROM runs_view ORDER BY run_id",
      false);
  EXPECT_EQ(Column(runs, 0), (std::vector<std::string>{"random", "grid"}));
  EXPECT_EQ(Column(runs, 2), (std::vector<std::string>{"finished", "interrupted"}));
  EXPECT_EQ(Column(runs, 3), (std::vector<std::string>{"3", "2"}));
  EXPECT_EQ(Column(runs, 4), (std::vector<std::string>{"3", "1"}));
  EXPECT_EQ(Column(runs, 5), (std::vector<std::string>{std::to_string(1e-3), std::to_string(4e-3)}));

  auto curve = RunSql(path, "SELECT trial, best_gflops FROM convergence WHERE tuner = 'random' ORDER BY trial", false);
  const double flops = 65536;
  EXPECT_EQ(Column(curve, 0), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(Column(curve, 1),
            (std::vector<std::string>{std::to_string(flops / 2e-3 * 1e-9), std::to_string(flops / 2e-3 * 1e-9),
                                      std::to_string(flops / 1e-3 * 1e-9)}));

  auto comparison = RunSql(path, "SELECT tuner, runs, trials, ok_fraction FROM tuner_comparison ORDER BY tuner", false);
  EXPECT_EQ(Column(comparison, 0), (std::vector<std::string>{"grid", "random"}));
  EXPECT_EQ(Column(comparison, 3), (std::vector<std::string>{std::to_string(0.5), std::to_string(1.0)}));
}

}  // namespace
}  // namespace tt
