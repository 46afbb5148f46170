// The network-run part of SqliteHistoryStore: network_runs, network_tasks, network_progress.
#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>

#include <stdexcept>

#include "history/process_owner.h"
#include "history/sqlite_history_store.h"
#include "history/sqlite_rows.h"
#include "history/timestamp.h"

namespace tt {
namespace {

std::vector<NetworkTaskRow> ReadNetworkTasks(SQLite::Database& db, int64_t network_run_id) {
  SQLite::Statement q(db,
                      "SELECT workload_id, weight, layers, default_time_s FROM network_tasks "
                      "WHERE network_run_id = ? ORDER BY task_index");
  q.bind(1, network_run_id);
  std::vector<NetworkTaskRow> tasks;
  while (q.executeStep()) {
    NetworkTaskRow row{q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getString(), {}};
    if (!q.getColumn(3).isNull()) row.default_time_s = q.getColumn(3).getDouble();
    tasks.push_back(std::move(row));
  }
  return tasks;
}

}  // namespace

SqliteHistoryStore::NetworkRunStart SqliteHistoryStore::BeginNetworkRun(int64_t device_id, const NetworkRunInfo& info,
                                                                        const std::vector<NetworkTaskRow>& tasks) {
  return Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement find(
        *db_,
        "SELECT id, status, coalesce(owner, '') FROM network_runs WHERE resume_key = ? AND device_id = ? "
        "AND status IN ('running', 'interrupted', 'failed') ORDER BY id DESC LIMIT 1");
    SQLite::bind(find, info.resume_key, device_id);
    NetworkRunStart start;
    const std::string me = ThisProcessOwner();
    if (find.executeStep()) {
      start.id = find.getColumn(0).getInt64();
      start.resumed = true;
      const std::string owner = find.getColumn(2).getString();
      if (find.getColumn(1).getString() == "running" && OwnedByAnotherLiveProcess(owner))
        throw EnvironmentError("network run " + std::to_string(start.id) +
                               " of this command is being tuned by process " +
                               owner.substr(owner.find(' ') + 1, owner.rfind(' ') - owner.find(' ') - 1) + " on " +
                               owner.substr(0, owner.find(' ')) +
                               "; two processes would share (and overspend) its budget: wait until it ends "
                               "(the same command then continues the run if it was stopped)");
      SQLite::Statement reopen(*db_,
                               "UPDATE network_runs SET status = 'running', ended_at = NULL, error = NULL, "
                               "owner = ? WHERE id = ?");
      SQLite::bind(reopen, me, start.id);
      reopen.exec();
    } else {
      SQLite::Statement q(*db_,
                          "INSERT INTO network_runs (network, batch, device_id, scheduler, sketch_policy, tuner, "
                          "seed, trials_requested, resume_key, command, started_at, owner) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      SQLite::bind(q, info.network, info.batch, device_id, info.scheduler, info.sketch_policy, info.tuner,
                   static_cast<int64_t>(info.seed), info.trials_requested, info.resume_key, info.command,
                   UtcNowIso8601(), me);
      q.exec();
      start.id = db_->getLastInsertRowid();
      SQLite::Statement add(*db_,
                            "INSERT INTO network_tasks (network_run_id, task_index, workload_id, weight, layers) "
                            "VALUES (?, ?, ?, ?, ?)");
      for (size_t i = 0; i < tasks.size(); ++i) {
        SQLite::bind(add, start.id, static_cast<int64_t>(i), tasks[i].workload_id, tasks[i].weight, tasks[i].layers);
        add.exec();
        add.reset();
      }
    }
    start.tasks = ReadNetworkTasks(*db_, start.id);
    transaction.commit();
    return start;
  });
}

void SqliteHistoryStore::SetDefaultTime(int64_t network_run_id, int task_index, double time_s) {
  Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "UPDATE network_tasks SET default_time_s = ? WHERE network_run_id = ? AND task_index = ?");
    SQLite::bind(q, time_s, network_run_id, task_index);
    q.exec();
  });
}

void SqliteHistoryStore::SetTaskSketch(int64_t network_run_id, int task_index, const std::string& sketch,
                                       const std::string& reason) {
  Translated(path_, [&] {
    SQLite::Statement q(
        *db_, "UPDATE network_tasks SET sketch = ?, sketch_reason = ? WHERE network_run_id = ? AND task_index = ?");
    SQLite::bind(q, sketch, reason, network_run_id, task_index);
    q.exec();
  });
}

void SqliteHistoryStore::SetFirstConfig(int64_t network_run_id, int task_index, const std::string& config,
                                        const std::string& source, bool unmeasured) {
  Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "UPDATE network_tasks SET first_config = ?, first_source = ?, unmeasured = ? "
                        "WHERE network_run_id = ? AND task_index = ?");
    SQLite::bind(q, config, source, unmeasured ? 1 : 0, network_run_id, task_index);
    q.exec();
  });
}

int64_t SqliteHistoryStore::NetworkTrialsUsed(int64_t network_run_id) const {
  return Translated(path_, [&] {
    SQLite::Statement q(
        *db_, "SELECT count(*) FROM trials JOIN runs ON runs.id = trials.run_id WHERE runs.network_run_id = ?");
    q.bind(1, network_run_id);
    q.executeStep();
    return q.getColumn(0).getInt64();
  });
}

void SqliteHistoryStore::RecordNetworkProgress(int64_t network_run_id, int64_t trials, double latency_s) {
  Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "INSERT OR REPLACE INTO network_progress (network_run_id, trials, latency_s, recorded_at) "
                        "VALUES (?, ?, ?, ?)");
    SQLite::bind(q, network_run_id, trials, latency_s, UtcNowIso8601());
    q.exec();
  });
}

void SqliteHistoryStore::EndNetworkRun(int64_t network_run_id, std::string_view status, std::string_view error) {
  const int changed = Translated(path_, [&] {
    SQLite::Statement q(*db_, "UPDATE network_runs SET status = ?, ended_at = ?, error = nullif(?, '') WHERE id = ?");
    SQLite::bind(q, std::string(status), UtcNowIso8601(), std::string(error), network_run_id);
    return q.exec();
  });
  if (changed == 0) throw std::invalid_argument("no network run " + std::to_string(network_run_id) + " in " + path_);
}

std::vector<NetworkRunSummary> SqliteHistoryStore::NetworkRuns(int64_t only_id) const {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "SELECT n.id, n.network, n.scheduler, n.sketch_policy, n.tuner, n.status, n.batch, "
                        "n.trials_requested, (SELECT coalesce(sum(weight * default_time_s), 0) FROM network_tasks "
                        "WHERE network_run_id = n.id AND default_time_s IS NOT NULL) "
                        "FROM network_runs n WHERE ?1 = 0 OR n.id = ?1 ORDER BY n.id");
    q.bind(1, only_id);
    SQLite::Statement progress(
        *db_, "SELECT trials, latency_s FROM network_progress WHERE network_run_id = ? ORDER BY trials");
    std::vector<NetworkRunSummary> runs;
    while (q.executeStep()) {
      NetworkRunSummary r;
      r.id = q.getColumn(0).getInt64();
      r.network = q.getColumn(1).getString();
      r.scheduler = q.getColumn(2).getString();
      r.sketch_policy = q.getColumn(3).getString();
      r.tuner = q.getColumn(4).getString();
      r.status = q.getColumn(5).getString();
      r.batch = q.getColumn(6).getInt64();
      r.trials_requested = q.getColumn(7).getInt64();
      r.default_latency_s = q.getColumn(8).getDouble();
      progress.bind(1, r.id);
      while (progress.executeStep())
        r.progress.emplace_back(progress.getColumn(0).getInt64(), progress.getColumn(1).getDouble());
      progress.reset();
      runs.push_back(std::move(r));
    }
    return runs;
  });
}

}  // namespace tt
