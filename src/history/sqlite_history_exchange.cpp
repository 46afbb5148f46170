// The store's exchange with the outside: importing trials recorded elsewhere, merging
// another database, and selecting trials with their task for export.
#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>

#include <set>
#include <string>

#include "history/database_file.h"
#include "history/sqlite_history_store.h"
#include "history/sqlite_rows.h"

namespace tt {
namespace {

std::set<std::string> RecordedKeys(SQLite::Database& db, const TaskIds& task) {
  SQLite::Statement q(db, "SELECT config_key FROM trials WHERE workload_id = ? AND template_id = ? AND device_id = ?");
  SQLite::bind(q, task.workload, task.kernel_template, task.device);
  std::set<std::string> keys;
  while (q.executeStep()) keys.insert(q.getColumn(0).getString());
  return keys;
}

// Rows of `other` get the ids of the rows here with the same unique key; a run is the same
// run when its task, tuner, seed and start time are.
constexpr const char* kMergeStatements[] = {
    "INSERT INTO devices (fingerprint, platform, name, driver_version, type, compute_units, "
    "max_work_group_size, local_mem_bytes, global_mem_bytes, first_seen, imported) "
    "SELECT fingerprint, platform, name, driver_version, type, compute_units, max_work_group_size, "
    "local_mem_bytes, global_mem_bytes, first_seen, imported FROM other.devices WHERE true "
    "ON CONFLICT (fingerprint) DO NOTHING",
    "INSERT INTO workloads (op, key, dims_json, flops) SELECT op, key, dims_json, flops "
    "FROM other.workloads WHERE true ON CONFLICT (key) DO NOTHING",
    // The knob schema too, or the merged trials would be no warm-start candidates.
    "INSERT INTO kernel_templates (name, op, source_hash, knob_schema) SELECT name, op, source_hash, knob_schema "
    "FROM other.kernel_templates WHERE true ON CONFLICT (name, source_hash) DO UPDATE "
    "SET knob_schema = excluded.knob_schema WHERE kernel_templates.knob_schema = ''",
    "CREATE TEMP TABLE merge_ids AS "
    "SELECT 'd' AS kind, o.id AS other_id, m.id AS id FROM other.devices o JOIN main.devices m USING (fingerprint) "
    "UNION ALL SELECT 'w', o.id, m.id FROM other.workloads o JOIN main.workloads m USING (key) "
    "UNION ALL SELECT 't', o.id, m.id FROM other.kernel_templates o "
    "JOIN main.kernel_templates m USING (name, source_hash)",
    // A network run is the same run when its resume key and start time are.
    "INSERT INTO network_runs (network, batch, device_id, scheduler, sketch_policy, tuner, seed, "
    "trials_requested, resume_key, command, started_at, ended_at, status, error) "
    "SELECT n.network, n.batch, d.id, n.scheduler, n.sketch_policy, n.tuner, n.seed, n.trials_requested, "
    "n.resume_key, n.command, n.started_at, n.ended_at, n.status, n.error FROM other.network_runs n "
    "JOIN merge_ids d ON d.kind = 'd' AND d.other_id = n.device_id WHERE NOT EXISTS (SELECT 1 FROM "
    "main.network_runs m WHERE m.resume_key = n.resume_key AND m.started_at = n.started_at) ORDER BY n.id",
    "INSERT INTO merge_ids SELECT 'n', o.id, m.id FROM other.network_runs o "
    "JOIN main.network_runs m USING (resume_key, started_at)",
    "INSERT INTO network_tasks (network_run_id, task_index, workload_id, weight, layers, default_time_s, "
    "first_config, first_source, unmeasured) "
    "SELECT n.id, o.task_index, w.id, o.weight, o.layers, o.default_time_s, o.first_config, o.first_source, "
    "o.unmeasured FROM other.network_tasks o "
    "JOIN merge_ids n ON n.kind = 'n' AND n.other_id = o.network_run_id "
    "JOIN merge_ids w ON w.kind = 'w' AND w.other_id = o.workload_id WHERE true ON CONFLICT DO NOTHING",
    "INSERT INTO network_progress (network_run_id, trials, latency_s, recorded_at) "
    "SELECT n.id, o.trials, o.latency_s, o.recorded_at FROM other.network_progress o "
    "JOIN merge_ids n ON n.kind = 'n' AND n.other_id = o.network_run_id WHERE true ON CONFLICT DO NOTHING",
    "CREATE TEMP TABLE merge_runs AS "
    "SELECT r.id, r.tuner, r.options_json, r.seed, r.command, r.trials_requested, r.started_at, r.ended_at, r.status, "
    "r.error, d.id AS m_device, w.id AS m_workload, t.id AS m_template, n.id AS m_network_run "
    "FROM other.runs r "
    "JOIN merge_ids d ON d.kind = 'd' AND d.other_id = r.device_id "
    "JOIN merge_ids w ON w.kind = 'w' AND w.other_id = r.workload_id "
    "JOIN merge_ids t ON t.kind = 't' AND t.other_id = r.template_id "
    "LEFT JOIN merge_ids n ON n.kind = 'n' AND n.other_id = r.network_run_id",
    "CREATE UNIQUE INDEX temp.merge_runs_by_id ON merge_runs (id)",
    "INSERT INTO user_spaces (template_id, space_json) SELECT t.id, o.space_json FROM other.user_spaces o "
    "JOIN merge_ids t ON t.kind = 't' AND t.other_id = o.template_id WHERE true ON CONFLICT (template_id) DO NOTHING",
};

// Trials to add (their ids in `other`): the first final record of `other` for each task and
// config key, unless the task here has one. Transient failures (a killed worker, ...) are no
// measurement: they stay behind.
constexpr const char* kMergeTrialsTable[] = {
    "CREATE TEMP TABLE merge_trials (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL)",
    "INSERT INTO merge_trials SELECT t.id, t.run_id "
    "FROM other.trials t JOIN merge_runs r ON r.id = t.run_id "
    "WHERE t.transient = 0 AND t.id = (SELECT min(u.id) FROM other.trials u WHERE u.workload_id = t.workload_id AND "
    "u.template_id = t.template_id AND u.device_id = t.device_id AND u.config_key = t.config_key "
    "AND u.transient = 0) "
    "AND NOT EXISTS (SELECT 1 FROM main.trials m WHERE m.workload_id = r.m_workload AND "
    "m.template_id = r.m_template AND m.device_id = r.m_device AND m.config_key = t.config_key "
    "AND m.transient = 0) "
    // A config a running tune has claimed is its to record: the merge leaves it alone.
    "AND NOT EXISTS (SELECT 1 FROM main.claims c WHERE c.workload_id = r.m_workload AND "
    "c.template_id = r.m_template AND c.device_id = r.m_device AND c.config_key = t.config_key)",
    "CREATE INDEX temp.merge_trials_by_run ON merge_trials (run_id)",
};

// A run is added unless it is here already, or every trial it had is (an import of the same
// log on two machines).
constexpr const char* kMergeRuns =
    "INSERT INTO runs (tuner, options_json, seed, command, device_id, workload_id, template_id, "
    "trials_requested, started_at, ended_at, status, error, network_run_id) "
    "SELECT tuner, options_json, seed, command, m_device, m_workload, m_template, trials_requested, "
    "started_at, ended_at, status, error, m_network_run FROM merge_runs r WHERE NOT EXISTS (SELECT 1 FROM main.runs m "
    "WHERE m.device_id = r.m_device AND m.workload_id = r.m_workload AND m.template_id = r.m_template "
    "AND m.tuner = r.tuner AND m.seed = r.seed AND m.started_at = r.started_at) "
    "AND (EXISTS (SELECT 1 FROM merge_trials t WHERE t.run_id = r.id) "
    "     OR NOT EXISTS (SELECT 1 FROM other.trials t WHERE t.run_id = r.id)) ORDER BY r.id";

// Which run here each run of `other` with trials to add is (looked up once per run, through runs_by_task).
constexpr const char* kMergeRunMap[] = {
    "CREATE TEMP TABLE merge_run_map (other_id INTEGER PRIMARY KEY, id INTEGER)",
    "INSERT INTO merge_run_map SELECT r.id, (SELECT min(m.id) FROM main.runs m WHERE m.workload_id = r.m_workload "
    "AND m.template_id = r.m_template AND m.device_id = r.m_device AND m.started_at = r.started_at "
    "AND m.tuner = r.tuner AND m.seed = r.seed) FROM merge_runs r "
    "WHERE EXISTS (SELECT 1 FROM merge_trials t WHERE t.run_id = r.id)",
};

constexpr const char* kMergeTrials =
    "INSERT INTO trials (run_id, workload_id, template_id, device_id, config_key, config_json, status, "
    "error, times_json, time_s, gflops, compile_s, batch, started_at, finished_at, first_launch_s, verify_s, timed_s, "
    "wall_s) "
    "SELECT map.id, r.m_workload, r.m_template, r.m_device, t.config_key, t.config_json, "
    "t.status, t.error, t.times_json, t.time_s, t.gflops, t.compile_s, t.batch, t.started_at, t.finished_at, "
    "t.first_launch_s, t.verify_s, t.timed_s, t.wall_s "
    "FROM merge_trials mt JOIN other.trials t ON t.id = mt.id JOIN merge_runs r ON r.id = mt.run_id "
    "JOIN merge_run_map map ON map.other_id = mt.run_id ORDER BY mt.id";

// Failures that the source's content explains: the source is bad input, not the environment.
bool SourceIsToBlame(const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_FORMAT:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<ImportCounts> SqliteHistoryStore::Import(const std::vector<ImportedTask>& tasks,
                                                     const std::string& source) {
  return Translated(path_, [&] {
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    std::vector<ImportCounts> counts;
    for (const ImportedTask& task : tasks) {
      TaskIds ids;
      ids.workload = EnsureWorkload(*db_, task.workload, task.flops);
      ids.kernel_template = EnsureTemplate(*db_, task.kernel_template);
      ids.device = EnsureDevice(*db_, task.device);
      if (!task.space_json.empty()) {
        SQLite::Statement space(*db_,
                                "INSERT INTO user_spaces (template_id, space_json) VALUES (?, ?) "
                                "ON CONFLICT (template_id) DO NOTHING");
        SQLite::bind(space, ids.kernel_template, task.space_json);
        space.exec();
      }
      std::set<std::string> keys = RecordedKeys(*db_, ids);
      std::vector<TrialRecord> fresh;
      for (const TrialRecord& trial : task.trials)
        if (keys.insert(trial.config_key).second) fresh.push_back(trial);
      counts.push_back({static_cast<int64_t>(fresh.size()), static_cast<int64_t>(task.trials.size() - fresh.size())});
      if (fresh.empty()) continue;
      RunInfo info{"import", "{}", 0, source, static_cast<int64_t>(fresh.size())};
      InsertTrials(*db_, InsertRun(*db_, ids, info, "finished"), ids, fresh);
    }
    transaction.commit();
    return counts;
  });
}

void SqliteHistoryStore::CheckMergeSource(const std::string& path) { CheckDatabaseToRead(path, /*same_version=*/true); }

MergeCounts SqliteHistoryStore::MergeFrom(const std::vector<std::string>& other_paths) {
  for (const auto& path : other_paths) CheckMergeSource(path);
  MergeCounts counts;
  for (const auto& path : other_paths) {
    Translated(path_, [&] {
      // Read-only (immutable where nothing can be created beside it): a source's -wal is read,
      // never checkpointed into it, and the source stays as it was.
      SQLite::Statement attach(*db_, "ATTACH DATABASE ? AS other");
      attach.bind(1, ReadOnlyUri(path));
      attach.exec();
      const auto detach = [&] { db_->exec("DETACH DATABASE other"); };
      try {
        db_->exec("PRAGMA temp_store = FILE");
        SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
        DropDeadClaims(*db_);
        const int64_t network_runs_before = db_->execAndGet("SELECT count(*) FROM network_runs").getInt64();
        for (const char* sql : kMergeStatements) db_->exec(sql);
        counts.network_runs_added +=
            db_->execAndGet("SELECT count(*) FROM network_runs").getInt64() - network_runs_before;
        for (const char* sql : kMergeTrialsTable) db_->exec(sql);
        counts.runs_added += db_->exec(kMergeRuns);
        for (const char* sql : kMergeRunMap) db_->exec(sql);
        const int64_t added = db_->exec(kMergeTrials);
        counts.trials_added += added;
        counts.trials_already_present +=
            db_->execAndGet("SELECT count(*) FROM other.trials WHERE transient = 0").getInt64() - added;
        db_->exec(
            "DROP TABLE temp.merge_ids; DROP TABLE temp.merge_runs; DROP TABLE temp.merge_trials; "
            "DROP TABLE temp.merge_run_map");
        transaction.commit();
      } catch (const SQLite::Exception& e) {
        detach();
        if (SourceIsToBlame(e))
          throw UserError("database " + path + " cannot be merged (" + e.what() + "); nothing of it was merged" +
                          (path == other_paths.front() ? "" : ", the sources before it were"));
        throw;
      } catch (...) {
        detach();
        throw;
      }
      detach();
    });
  }
  return counts;
}

void SqliteHistoryStore::ForEachTrialWithTask(const TrialFilter& f,
                                              const std::function<void(const TrialWithTask&)>& each) const {
  Translated(path_, [&] {
    SQLite::Statement q(*db_, std::string("SELECT ") + kTrialRecordColumns +
                                  ", trials.id, w.key, w.flops, k.name, k.op, k.source_hash, d.platform, d.name,"
                                  " d.driver_version, d.type, d.imported, r.tuner"
                                  " FROM trials JOIN workloads w ON w.id = trials.workload_id"
                                  " JOIN kernel_templates k ON k.id = trials.template_id"
                                  " JOIN devices d ON d.id = trials.device_id JOIN runs r ON r.id = trials.run_id"
                                  " WHERE (?1 = '' OR w.op = ?1) AND (?2 = '' OR w.key = ?2)"
                                  " AND (?3 = 0 OR trials.run_id = ?3) AND (?4 = '' OR instr(d.name, ?4) > 0)"
                                  " AND (?5 = 0 OR r.network_run_id = ?5)"
                                  " ORDER BY trials.id");
    SQLite::bind(q, f.op, f.workload, f.run_id, f.device, f.network_run_id);
    TrialWithTask row;
    bool delivered = false;  // a retry after a busy database would deliver rows twice
    while (true) {
      try {
        if (!q.executeStep()) break;
      } catch (const SQLite::Exception& e) {
        if (delivered && ((e.getErrorCode() & 0xff) == SQLITE_BUSY || (e.getErrorCode() & 0xff) == SQLITE_LOCKED))
          throw EnvironmentError("database " + path_ + ": " + e.what());
        throw;
      }
      delivered = true;
      row.trial = ReadTrial(q);
      constexpr int c = kTrialRecordColumnCount;  // the task's columns follow the trial's
      row.trial_id = q.getColumn(c + 0).getInt64();
      row.workload = Workload::FromKey(q.getColumn(c + 1).getString());
      row.flops = q.getColumn(c + 2).getDouble();
      row.kernel_template = {q.getColumn(c + 3).getString(), q.getColumn(c + 4).getString(),
                             q.getColumn(c + 5).getString(), ""};
      row.device.platform = q.getColumn(c + 6).getString();
      row.device.name = q.getColumn(c + 7).getString();
      row.device.driver_version = q.getColumn(c + 8).getString();
      row.device.type = q.getColumn(c + 9).getString();
      row.device.imported = q.getColumn(c + 10).getInt() != 0;
      row.tuner = q.getColumn(c + 11).getString();
      each(row);
    }
  });
}

std::vector<TrialWithTask> SqliteHistoryStore::TrialsWithTasks(const TrialFilter& f) const {
  std::vector<TrialWithTask> rows;
  ForEachTrialWithTask(f, [&](const TrialWithTask& row) { rows.push_back(row); });
  return rows;
}

void SqliteHistoryStore::EnsureUserSpace(int64_t template_id, const std::string& space_json) {
  Translated(path_, [&] {
    SQLite::Statement space(*db_,
                            "INSERT INTO user_spaces (template_id, space_json) VALUES (?, ?) "
                            "ON CONFLICT (template_id) DO NOTHING");
    SQLite::bind(space, template_id, space_json);
    space.exec();
    return 0;
  });
}

std::vector<UserSpaceRecord> SqliteHistoryStore::UserSpaces(const std::string& name) const {
  return Translated(path_, [&] {
    SQLite::Statement q(*db_,
                        "SELECT k.id, k.name, k.op, k.source_hash, s.space_json FROM user_spaces s "
                        "JOIN kernel_templates k ON k.id = s.template_id WHERE k.name = ? ORDER BY k.id");
    q.bind(1, name);
    std::vector<UserSpaceRecord> spaces;
    while (q.executeStep()) {
      UserSpaceRecord r{{q.getColumn(1).getString(), q.getColumn(2).getString(), q.getColumn(3).getString()},
                        q.getColumn(4).getString(),
                        {}};
      SQLite::Statement w(*db_,
                          "SELECT DISTINCT w.key FROM trials t JOIN workloads w ON w.id = t.workload_id "
                          "WHERE t.template_id = ? ORDER BY w.key");
      w.bind(1, q.getColumn(0).getInt64());
      while (w.executeStep()) r.workloads.push_back(Workload::FromKey(w.getColumn(0).getString()));
      spaces.push_back(std::move(r));
    }
    return spaces;
  });
}

}  // namespace tt
