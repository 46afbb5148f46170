#include "history/sqlite_history_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "core/errors.h"
#include "history/database_file.h"
#include "history/sqlite_errors.h"
#include "history/timestamp.h"

namespace tt {
namespace {

// The Ensure* statements find a row by its unique key or insert it; their no-op DO UPDATE
// makes RETURNING give the id of an existing row too.
int64_t ReturnedId(SQLite::Statement& statement) {
  statement.executeStep();
  return statement.getColumn(0).getInt64();
}

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
                      "first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint "
                      "RETURNING id");
  SQLite::bind(q, d.Fingerprint(), d.platform, d.name, d.driver_version, d.type,
               static_cast<int64_t>(d.compute_units), static_cast<int64_t>(d.max_work_group_size),
               static_cast<int64_t>(d.local_mem_bytes), static_cast<int64_t>(d.global_mem_bytes),
               UtcNowIso8601());
  return ReturnedId(q);
}

constexpr const char* kTrialColumns =
    "SELECT config_key, config_json, status, coalesce(error, ''), times_json, time_s, gflops, "
    "compile_s, run_id, batch, started_at, finished_at FROM trials "
    "WHERE workload_id = ? AND template_id = ? AND device_id = ? ";

TrialRecord ReadTrial(SQLite::Statement& q) {
  TrialRecord r;
  r.config_key = q.getColumn(0).getString();
  r.config_json = q.getColumn(1).getString();
  const std::string status = q.getColumn(2).getString();
  const auto parsed = ParseMeasureStatus(status);
  if (!parsed) throw EnvironmentError("unknown trial status '" + status + "' in the history");
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
  return r;
}

std::vector<TrialRecord> SelectTrials(SQLite::Database& db, const TaskIds& task,
                                      const std::string& tail) {
  SQLite::Statement q(db, kTrialColumns + tail);
  SQLite::bind(q, task.workload, task.kernel_template, task.device);
  std::vector<TrialRecord> trials;
  while (q.executeStep()) trials.push_back(ReadTrial(q));
  return trials;
}

}  // namespace

SqliteHistoryStore::SqliteHistoryStore(std::string path, std::unique_ptr<SQLite::Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}

SqliteHistoryStore::~SqliteHistoryStore() = default;

std::unique_ptr<SqliteHistoryStore> SqliteHistoryStore::Open(const std::string& path) {
  return std::unique_ptr<SqliteHistoryStore>(new SqliteHistoryStore(path, OpenDatabaseFile(path)));
}

int SqliteHistoryStore::LatestSchemaVersion() { return EmbeddedSchemaVersion(); }

TaskIds SqliteHistoryStore::EnsureTask(const Workload& workload, double flops,
                                       const TemplateRef& kernel_template,
                                       const DeviceInfo& device) {
  return Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    TaskIds ids;
    ids.workload = EnsureWorkload(*db_, workload, flops);
    ids.kernel_template = EnsureTemplate(*db_, kernel_template);
    ids.device = EnsureDevice(*db_, device);
    transaction.commit();
    return ids;
  });
}

int64_t SqliteHistoryStore::BeginRun(const TaskIds& task, const RunInfo& info) {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "INSERT INTO runs (tuner, options_json, seed, command, device_id, "
                        "workload_id, template_id, trials_requested, started_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    SQLite::bind(q, info.tuner, info.options_json.empty() ? "{}" : info.options_json,
                 static_cast<int64_t>(info.seed), info.command, task.device, task.workload,
                 task.kernel_template, info.trials_requested, UtcNowIso8601());
    q.exec();
    return db_->getLastInsertRowid();
  });
}

void SqliteHistoryStore::RecordBatch(int64_t run_id, const TaskIds& task,
                                     const std::vector<TrialRecord>& records) {
  Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement q(*db_,
                        "INSERT INTO trials (run_id, workload_id, template_id, device_id, "
                        "config_key, config_json, status, error, times_json, time_s, gflops, "
                        "compile_s, batch, started_at, finished_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?, ?, ?, ?, ?, ?)");
    const std::string now = UtcNowIso8601();
    for (const TrialRecord& r : records) {
      const MeasureResult& m = r.result;
      SQLite::bind(q, run_id, task.workload, task.kernel_template, task.device, r.config_key,
                   r.config_json, std::string(ToString(m.status)), m.error,
                   nlohmann::json(m.times_s).dump(), m.time_s, m.gflops, m.compile_s, r.batch,
                   r.started_at.empty() ? now : r.started_at,
                   r.finished_at.empty() ? now : r.finished_at);
      q.exec();
      q.reset();
    }
    transaction.commit();
  });
}

void SqliteHistoryStore::EndRun(int64_t run_id, std::string_view status) {
  const int changed = Translated(path_, [&] {
    SQLite::Statement q(*db_, "UPDATE runs SET status = ?, ended_at = ? WHERE id = ?");
    SQLite::bind(q, std::string(status), UtcNowIso8601(), run_id);
    return q.exec();
  });
  if (changed == 0)
    throw std::invalid_argument("no run " + std::to_string(run_id) + " in " + path_);
}

std::vector<TrialRecord> SqliteHistoryStore::Trials(const TaskIds& task) const {
  return Translated(path_, [&] { return SelectTrials(*db_, task, "ORDER BY id"); });
}

std::optional<TrialRecord> SqliteHistoryStore::Best(const TaskIds& task) const {
  auto best = Translated(path_, [&] {
    return SelectTrials(*db_, task, "AND status = 'ok' AND time_s > 0 ORDER BY time_s, id LIMIT 1");
  });
  if (best.empty()) return std::nullopt;
  return std::move(best.front());
}

int64_t SqliteHistoryStore::CountTrials(int64_t run_id) const {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_, "SELECT count(*) FROM trials WHERE run_id = ?");
    q.bind(1, run_id);
    q.executeStep();
    return q.getColumn(0).getInt64();
  });
}

}  // namespace tt

namespace tt {

std::vector<std::pair<TaskIds, DeviceInfo>> SqliteHistoryStore::RecordedTasks(
    const Workload& workload, const TemplateRef& kernel_template) const {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "SELECT DISTINCT t.workload_id, t.template_id, d.id, d.platform, d.name, d.driver_version,"
                        " d.type, d.compute_units, d.max_work_group_size, d.local_mem_bytes, d.global_mem_bytes"
                        " FROM trials t JOIN workloads w ON w.id = t.workload_id"
                        " JOIN kernel_templates k ON k.id = t.template_id JOIN devices d ON d.id = t.device_id"
                        " WHERE w.key = ? AND k.name = ? AND k.source_hash = ? ORDER BY d.id");
    q.bind(1, workload.Key());
    q.bind(2, kernel_template.name);
    q.bind(3, kernel_template.source_hash);
    std::vector<std::pair<TaskIds, DeviceInfo>> tasks;
    while (q.executeStep()) {
      const DeviceInfo d = ReadDevice(q, 3);
      tasks.push_back({{q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()}, d});
    }
    return tasks;
  });
}

}  // namespace tt
