#pragma once
// Rows shared by the store's writers (record, import, merge): find-or-insert of workloads,
// templates and devices by their unique keys. Internal to history/.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/errors.h"
#include "core/workload.h"
#include "history/sqlite_history_store.h"

namespace tt {

// SQLite failures after Open are a broken environment (disk full, lock held past the busy
// timeout) unless a record broke a constraint, which is the caller's bug.
template <typename F>
auto Translated(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SQLite::Exception& e) {
    const std::string what = "database " + path + ": " + e.what();
    if (e.getErrorCode() == SQLITE_CONSTRAINT) throw std::invalid_argument(what);
    throw EnvironmentError(what);
  }
}

int64_t EnsureWorkload(SQLite::Database& db, const Workload& workload, double flops);
int64_t EnsureTemplate(SQLite::Database& db, const TemplateRef& t);
int64_t EnsureDevice(SQLite::Database& db, const DeviceInfo& d);
// The columns ReadTrial reads, in its order (selected from the table named trials).
inline constexpr const char* kTrialRecordColumns =
    "trials.config_key, trials.config_json, trials.status, coalesce(trials.error, ''), trials.times_json, "
    "trials.time_s, trials.gflops, trials.compile_s, trials.run_id, trials.batch, trials.started_at, "
    "trials.finished_at";
// Reads columns 0 to 11 of a row selected with kTrialRecordColumns.
TrialRecord ReadTrial(SQLite::Statement& q);
// status "running" leaves ended_at NULL; any other ends the run now.
int64_t InsertRun(SQLite::Database& db, const TaskIds& task, const RunInfo& info, const std::string& status);
// Empty started_at/finished_at are written as the current time.
void InsertTrials(SQLite::Database& db, int64_t run_id, const TaskIds& task,
                  const std::vector<TrialRecord>& records);

}  // namespace tt
