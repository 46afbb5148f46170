#include "history/sqlite_history_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "core/errors.h"
#include "history/database_file.h"
#include "history/measured_rule.h"
#include "history/sqlite_rows.h"
#include "history/timestamp.h"

namespace tt {
namespace {

// Disk space kept allocated past the end of the -wal file (FALLOC_FL_KEEP_SIZE: SQLite sees the
// same file). When the disk fills during a run, the batch that no longer fits fails, but the
// few pages that mark the run failed (and release its claims) are written into this reserve.
constexpr off_t kWalReserveBytes = 1 << 20;

// Throws EnvironmentError when not even 64 KiB are left: a run then stops before the disk is
// so full that it could not be marked failed.
void ReserveWalSpace(const std::string& path) {
  const int fd = open((path + "-wal").c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;  // not in WAL mode yet, or not ours to reserve
  struct stat st {};
  int error = 0;
  if (fstat(fd, &st) == 0)  // as much as the disk still has, down to 64 KiB
    for (off_t bytes = kWalReserveBytes; bytes >= (64 << 10); bytes /= 4) {
      error = fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, bytes) == 0 ? 0 : errno;
      if (error != ENOSPC && error != EDQUOT) break;  // reserved, or a file system that cannot say
    }
  close(fd);
  if (error == ENOSPC || error == EDQUOT)
    throw EnvironmentError("database " + path + ": the disk is full (" + std::strerror(error) + ")");
}

const std::string kTrialColumns = std::string("SELECT ") + kTrialRecordColumns +
                                  " FROM trials WHERE workload_id = ? AND template_id = ? AND device_id = ? ";

std::vector<TrialRecord> SelectTrials(SQLite::Database& db, const TaskIds& task, const std::string& tail) {
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
  auto store = std::unique_ptr<SqliteHistoryStore>(new SqliteHistoryStore(path, OpenDatabaseFile(path)));
  Translated(path, [&] { EndRunsOfGoneProcesses(*store->db_); });
  return store;
}

std::unique_ptr<SqliteHistoryStore> SqliteHistoryStore::OpenReadOnly(const std::string& path) {
  if (CheckDatabaseToRead(path, /*same_version=*/false) < EmbeddedSchemaVersion()) OpenDatabaseFile(path).reset();
  return std::unique_ptr<SqliteHistoryStore>(new SqliteHistoryStore(path, OpenDatabaseReadOnly(path)));
}

int SqliteHistoryStore::LatestSchemaVersion() { return EmbeddedSchemaVersion(); }

TaskIds SqliteHistoryStore::EnsureTask(const Workload& workload, double flops, const TemplateRef& kernel_template,
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
  ReserveWalSpace(path_);
  return Translated(path_, [&] { return InsertRun(*db_, task, info, "running"); });
}

std::vector<bool> SqliteHistoryStore::Claim(int64_t run_id, const TaskIds& task, const std::vector<std::string>& keys) {
  ReserveWalSpace(path_);
  return Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    DropDeadClaims(*db_, &task);
    SQLite::Statement taken(*db_,
                            "SELECT EXISTS (SELECT 1 FROM trials WHERE workload_id = ?1 AND template_id = ?2 "
                            "AND device_id = ?3 AND config_key = ?4 AND transient = 0) OR EXISTS (SELECT 1 FROM "
                            "claims WHERE workload_id = ?1 AND template_id = ?2 AND device_id = ?3 AND "
                            "config_key = ?4 AND run_id != ?5)");
    SQLite::Statement claim(*db_,
                            "INSERT OR REPLACE INTO claims (workload_id, template_id, device_id, config_key, "
                            "run_id, pid, claimed_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    const std::string now = UtcNowIso8601();
    std::vector<bool> claimed;
    for (const std::string& key : keys) {
      SQLite::bind(taken, task.workload, task.kernel_template, task.device, key, run_id);
      taken.executeStep();
      const bool free = taken.getColumn(0).getInt() == 0;
      taken.reset();
      if (free) {
        SQLite::bind(claim, task.workload, task.kernel_template, task.device, key, run_id,
                     static_cast<int64_t>(getpid()), now);
        claim.exec();
        claim.reset();
      }
      claimed.push_back(free);
    }
    transaction.commit();
    return claimed;
  });
}

void SqliteHistoryStore::RecordBatch(int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records) {
  ReserveWalSpace(path_);
  Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    // A final record of a config may have appeared since it was claimed (a merge or an import
    // that did not wait for the claim): the first one stays, this run's is dropped, and the
    // run goes on instead of failing on the unique index.
    SQLite::Statement recorded(*db_,
                               "SELECT EXISTS (SELECT 1 FROM trials WHERE workload_id = ? AND template_id = ? "
                               "AND device_id = ? AND config_key = ? AND transient = 0)");
    std::vector<TrialRecord> fresh;
    for (const TrialRecord& r : records) {
      const bool final = !(r.result.transient && !r.result.ok());
      bool present = false;
      if (final) {
        SQLite::bind(recorded, task.workload, task.kernel_template, task.device, r.config_key);
        recorded.executeStep();
        present = recorded.getColumn(0).getInt() != 0;
        recorded.reset();
      }
      if (!present) fresh.push_back(r);
    }
    InsertTrials(*db_, run_id, task, fresh);
    SQLite::Statement unclaim(*db_,
                              "DELETE FROM claims WHERE workload_id = ? AND template_id = ? AND device_id = ? "
                              "AND config_key = ? AND run_id = ?");
    for (const TrialRecord& r : records) {
      SQLite::bind(unclaim, task.workload, task.kernel_template, task.device, r.config_key, run_id);
      unclaim.exec();
      unclaim.reset();
    }
    transaction.commit();
  });
}

bool SqliteHistoryStore::Retime(const TaskIds& task, const std::string& config_key, const MeasureResult& again) {
  return Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement read(*db_,
                           "SELECT id, status = 'ok', times_json, time_s, gflops, first_launch_s, verify_s, timed_s, "
                           "wall_s FROM trials WHERE workload_id = ? AND template_id = ? AND device_id = ? AND "
                           "config_key = ? AND transient = 0");
    SQLite::bind(read, task.workload, task.kernel_template, task.device, config_key);
    if (!read.executeStep()) return false;
    MeasureResult recorded;
    if (read.getColumn(1).getInt() == 0) recorded.status = MeasureStatus::kRuntimeError;  // any failure: kept
    recorded.times_s = nlohmann::json::parse(read.getColumn(2).getString()).get<std::vector<double>>();
    recorded.time_s = read.getColumn(3).getDouble();
    recorded.gflops = read.getColumn(4).getDouble();
    recorded.first_launch_s = read.getColumn(5).getDouble();
    recorded.verify_s = read.getColumn(6).getDouble();
    recorded.timed_s = read.getColumn(7).getDouble();
    recorded.wall_s = read.getColumn(8).getDouble();
    const std::optional<MeasureResult> merged = RetimedResult(recorded, again);
    if (!merged) return false;
    SQLite::Statement write(*db_,
                            "UPDATE trials SET status = ?, error = nullif(?, ''), times_json = ?, time_s = ?, "
                            "gflops = ?, first_launch_s = ?, verify_s = ?, timed_s = ?, wall_s = ? WHERE id = ?");
    SQLite::bind(write, std::string(ToString(merged->status)), merged->error, nlohmann::json(merged->times_s).dump(),
                 merged->time_s, merged->gflops, merged->first_launch_s, merged->verify_s, merged->timed_s,
                 merged->wall_s, read.getColumn(0).getInt64());
    write.exec();
    transaction.commit();
    return true;
  });
}

void SqliteHistoryStore::ReleaseClaims(int64_t run_id) {
  Translated(path_, [&] {
    SQLite::Statement q(*db_, "DELETE FROM claims WHERE run_id = ?");
    q.bind(1, run_id);
    q.exec();
  });
}

void SqliteHistoryStore::EndRun(int64_t run_id, std::string_view status, std::string_view error) {
  const int changed = Translated(path_, [&] {
    SQLite::Statement q(*db_, "UPDATE runs SET status = ?, ended_at = ?, error = nullif(?, '') WHERE id = ?");
    SQLite::bind(q, std::string(status), UtcNowIso8601(), std::string(error), run_id);
    return q.exec();
  });
  if (changed == 0) throw std::invalid_argument("no run " + std::to_string(run_id) + " in " + path_);
}

std::vector<MeasuredConfig> SqliteHistoryStore::MeasuredConfigs(const TaskIds& task, bool retry_transient) const {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "SELECT config_key, status, gflops, time_s, transient FROM trials "
                        "WHERE workload_id = ? AND template_id = ? AND device_id = ? ORDER BY id");
    SQLite::bind(q, task.workload, task.kernel_template, task.device);
    std::vector<MeasuredConfig> measured;
    MeasuredRule rule(retry_transient);
    while (q.executeStep()) {
      MeasuredConfig m{q.getColumn(0).getString(), MeasureStatus::kOk, q.getColumn(2).getDouble(),
                       q.getColumn(3).getDouble()};
      const auto status = ParseMeasureStatus(q.getColumn(1).getString());
      if (!status) throw UnreadableValue("a trial of status '" + q.getColumn(1).getString() + "'");
      m.status = *status;
      const bool transient = q.getColumn(4).getInt() != 0;
      if (!rule.Counts(m.config_key, m.status, transient)) continue;
      measured.push_back(std::move(m));
    }
    return measured;
  });
}

std::vector<TrialRecord> SqliteHistoryStore::Trials(const TaskIds& task) const {
  return Translated(path_, [&] { return SelectTrials(*db_, task, "ORDER BY id"); });
}

std::optional<TrialRecord> SqliteHistoryStore::Best(const TaskIds& task) const {
  auto best = Translated(
      path_, [&] { return SelectTrials(*db_, task, "AND status = 'ok' AND time_s > 0 ORDER BY time_s, id LIMIT 1"); });
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
      DeviceInfo d = ReadDevice(q, 3);
      d.imported = q.getColumn(11).getInt() != 0;
      tasks.push_back({{q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()}, d});
    }
    return tasks;
  });
}

}  // namespace tt
