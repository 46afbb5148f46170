#include "history/sqlite_rows.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <SQLiteCpp/VariadicBind.h>
#include <signal.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "history/process_owner.h"
#include "history/timestamp.h"

namespace tt {
namespace {

// The Ensure* statements find a row by its unique key or insert it; their no-op DO UPDATE
// makes RETURNING give the id of an existing row too.
int64_t ReturnedId(SQLite::Statement& statement) {
  statement.executeStep();
  return statement.getColumn(0).getInt64();
}

}  // namespace

int64_t EnsureWorkload(SQLite::Database& db, const Workload& workload, double flops) {
  nlohmann::ordered_json dims = nlohmann::ordered_json::object();
  for (const auto& [name, value] : workload.dims) dims[name] = value;
  SQLite::Statement q(db,
                      "INSERT INTO workloads (op, key, dims_json, flops) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING id");
  SQLite::bind(q, workload.op, workload.Key(), dims.dump(), flops);
  return ReturnedId(q);
}

int64_t EnsureTemplate(SQLite::Database& db, const TemplateRef& t) {
  // A row recorded before knob schemas were known gets the schema now.
  SQLite::Statement q(db,
                      "INSERT INTO kernel_templates (name, op, source_hash, knob_schema) "
                      "VALUES (?, ?, ?, ?) ON CONFLICT (name, source_hash) DO UPDATE SET "
                      "knob_schema = CASE knob_schema WHEN '' THEN excluded.knob_schema ELSE knob_schema END "
                      "RETURNING id");
  SQLite::bind(q, t.name, t.op, t.source_hash, t.knob_schema);
  return ReturnedId(q);
}

int64_t EnsureDevice(SQLite::Database& db, const DeviceInfo& d) {
  SQLite::Statement q(db,
                      "INSERT INTO devices (fingerprint, platform, name, driver_version, type, "
                      "compute_units, max_work_group_size, local_mem_bytes, global_mem_bytes, "
                      "first_seen, imported) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint "
                      "RETURNING id");
  SQLite::bind(q, d.Fingerprint(), d.platform, d.name, d.driver_version, d.type);
  // An imported device's limits are unknown: left NULL, not 0.
  if (!d.imported) {
    q.bind(6, static_cast<int64_t>(d.compute_units));
    q.bind(7, static_cast<int64_t>(d.max_work_group_size));
    q.bind(8, static_cast<int64_t>(d.local_mem_bytes));
    q.bind(9, static_cast<int64_t>(d.global_mem_bytes));
  }
  q.bind(10, UtcNowIso8601());
  q.bind(11, d.imported ? 1 : 0);
  return ReturnedId(q);
}

TrialRecord ReadTrial(SQLite::Statement& q) {
  TrialRecord r;
  r.config_key = q.getColumn(0).getString();
  r.config_json = q.getColumn(1).getString();
  const std::string status = q.getColumn(2).getString();
  const auto parsed = ParseMeasureStatus(status);
  if (!parsed) throw UnreadableValue("a trial of status '" + status + "'");
  r.result.status = *parsed;
  r.result.error = q.getColumn(3).getString();
  r.result.times_s = nlohmann::json::parse(q.getColumn(4).getString()).get<std::vector<double>>();
  r.result.time_s = q.getColumn(5).getDouble();
  r.result.gflops = q.getColumn(6).getDouble();
  r.result.compile_s = q.getColumn(7).getDouble();
  r.run_id = q.getColumn(8).getInt64();
  r.batch = q.getColumn(9).getInt();
  r.started_at = q.getColumn(10).getString();
  r.finished_at = q.getColumn(11).getString();
  r.result.transient = q.getColumn(12).getInt() != 0;
  return r;
}

int64_t InsertRun(SQLite::Database& db, const TaskIds& task, const RunInfo& info, const std::string& status) {
  SQLite::Statement q(db,
                      "INSERT INTO runs (tuner, options_json, seed, command, device_id, workload_id, "
                      "template_id, trials_requested, started_at, ended_at, status, network_run_id, owner) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, 0), ?)");
  const std::string now = UtcNowIso8601();
  SQLite::bind(q, info.tuner, info.options_json.empty() ? "{}" : info.options_json, static_cast<int64_t>(info.seed),
               info.command, task.device, task.workload, task.kernel_template, info.trials_requested, now);
  if (status != "running") q.bind(10, now);
  q.bind(11, status);
  q.bind(12, info.network_run_id);
  if (status == "running") q.bind(13, ThisProcessOwner());
  q.exec();
  return db.getLastInsertRowid();
}

void InsertTrials(SQLite::Database& db, int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records) {
  SQLite::Statement q(
      db,
      "INSERT INTO trials (run_id, workload_id, template_id, device_id, "
      "config_key, config_json, status, error, times_json, time_s, gflops, "
      "compile_s, batch, started_at, finished_at, transient, first_launch_s, verify_s, timed_s, wall_s, "
      "measured_by) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, nullif(?, ''))");
  const std::string now = UtcNowIso8601();
  for (const TrialRecord& r : records) {
    const MeasureResult& m = r.result;
    SQLite::bind(q, run_id, task.workload, task.kernel_template, task.device, r.config_key, r.config_json,
                 std::string(ToString(m.status)), m.error, nlohmann::json(m.times_s).dump(), m.time_s, m.gflops,
                 m.compile_s, r.batch, r.started_at.empty() ? now : r.started_at,
                 r.finished_at.empty() ? now : r.finished_at, m.transient && !m.ok() ? 1 : 0, m.first_launch_s,
                 m.verify_s, m.timed_s, m.wall_s, m.measured_by);
    q.exec();
    q.reset();
  }
}

void DropDeadClaims(SQLite::Database& db, const TaskIds* task) {
  SQLite::Statement pids(db, task ? "SELECT DISTINCT pid FROM claims WHERE workload_id = ? AND template_id = ? AND "
                                    "device_id = ?"
                                  : "SELECT DISTINCT pid FROM claims");
  if (task) SQLite::bind(pids, task->workload, task->kernel_template, task->device);
  std::vector<int64_t> dead;
  while (pids.executeStep()) {
    const auto pid = static_cast<pid_t>(pids.getColumn(0).getInt64());
    if (kill(pid, 0) != 0 && errno == ESRCH) dead.push_back(pid);
  }
  SQLite::Statement drop(db, "DELETE FROM claims WHERE pid = ?");
  for (int64_t pid : dead) {
    drop.bind(1, pid);
    drop.exec();
    drop.reset();
  }
}

int EndRunsOfGoneProcesses(SQLite::Database& db) {
  // Read first: a database without such runs is not written (nor locked for writing).
  std::vector<std::pair<std::string, std::string>> gone;  // table, owner
  for (const std::string table : {"runs", "network_runs"}) {
    SQLite::Statement q(db, "SELECT DISTINCT owner FROM " + table + " WHERE status = 'running' AND owner IS NOT NULL");
    while (q.executeStep())
      if (OwnerIsGone(q.getColumn(0).getString())) gone.emplace_back(table, q.getColumn(0).getString());
  }
  if (gone.empty()) return 0;
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  const std::string now = UtcNowIso8601();
  int ended = 0;
  for (const auto& [table, owner] : gone) {
    SQLite::Statement q(
        db,
        "UPDATE " + table + " SET status = 'failed', ended_at = ?, error = ? WHERE status = 'running' AND owner = ?");
    const std::string pid_host = owner.substr(owner.find(' ') + 1, owner.rfind(' ') - owner.find(' ') - 1);
    SQLite::bind(q, now,
                 "its process (pid " + pid_host + " on " + owner.substr(0, owner.find(' ')) +
                     ") ended without ending it: killed, or its host lost",
                 owner);
    ended += q.exec();
  }
  transaction.commit();
  return ended;
}

}  // namespace tt
