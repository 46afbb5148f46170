#include "history/sqlite_history_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "core/errors.h"
#include "history/database_file.h"
#include "history/sqlite_rows.h"
#include "history/timestamp.h"

namespace tt {
namespace {

const std::string kTrialColumns = std::string("SELECT ") + kTrialRecordColumns +
                                  " FROM trials WHERE workload_id = ? AND template_id = ? AND device_id = ? ";

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
  return Translated(path_, [&] { return InsertRun(*db_, task, info, "running"); });
}

void SqliteHistoryStore::RecordBatch(int64_t run_id, const TaskIds& task,
                                     const std::vector<TrialRecord>& records) {
  Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    InsertTrials(*db_, run_id, task, records);
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
                        " d.type, d.compute_units, d.max_work_group_size, d.local_mem_bytes, d.global_mem_bytes,"
                        " d.imported"
                        " FROM trials t JOIN workloads w ON w.id = t.workload_id"
                        " JOIN kernel_templates k ON k.id = t.template_id JOIN devices d ON d.id = t.device_id"
                        " WHERE w.key = ? AND k.name = ? AND k.source_hash = ? ORDER BY d.id");
    q.bind(1, workload.Key());
    q.bind(2, kernel_template.name);
    q.bind(3, kernel_template.source_hash);
    std::vector<std::pair<TaskIds, DeviceInfo>> tasks;
    while (q.executeStep()) {
      DeviceInfo d;
      d.platform = q.getColumn(3).getString();
      d.name = q.getColumn(4).getString();
      d.driver_version = q.getColumn(5).getString();
      d.type = q.getColumn(6).getString();
      d.compute_units = static_cast<unsigned>(q.getColumn(7).getInt64());
      d.max_work_group_size = static_cast<size_t>(q.getColumn(8).getInt64());
      d.local_mem_bytes = static_cast<size_t>(q.getColumn(9).getInt64());
      d.global_mem_bytes = static_cast<size_t>(q.getColumn(10).getInt64());
      d.imported = q.getColumn(11).getInt() != 0;
      tasks.push_back({{q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()}, d});
    }
    return tasks;
  });
}

}  // namespace tt
