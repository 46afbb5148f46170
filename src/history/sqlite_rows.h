#pragma once
// Rows shared by the store's writers (record, import, merge): find-or-insert of workloads,
// templates and devices by their unique keys. Internal to history/.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/errors.h"
#include "core/workload.h"
#include "history/sqlite_history_store.h"

namespace tt {

// SQLite failures after Open are a broken environment (disk full) unless a record broke a
// constraint, which is the caller's bug. A database locked by another process is waited for:
// each attempt already waits the busy timeout, and a whole transaction is tried again until
// kLockPatience has passed, so a long writer elsewhere costs time, not the run.
constexpr auto kLockPatience = std::chrono::minutes(5);

// A value tensortune never writes (crafted, or changed by hand) found while reading: the
// database is bad input, reported in one line like a corrupt file.
struct UnreadableValue : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void ThrowUnreadable(const std::string& path, const std::string& what) {
  throw UserError("database " + path + " holds a value tensortune cannot read (" + what +
                  "): it was not written by tensortune, or was changed since");
}

template <typename F>
auto Translated(const std::string& path, F&& f) -> decltype(f()) {
  const auto give_up = std::chrono::steady_clock::now() + kLockPatience;
  while (true) {
    try {
      return f();
    } catch (const SQLite::Exception& e) {
      const int code = e.getErrorCode() & 0xff;
      if ((code == SQLITE_BUSY || code == SQLITE_LOCKED) && std::chrono::steady_clock::now() < give_up) continue;
      const std::string what = "database " + path + ": " + e.what();
      if (code == SQLITE_CONSTRAINT) throw std::invalid_argument(what);
      if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_TOOBIG || code == SQLITE_MISMATCH)
        throw UserError(what);
      throw EnvironmentError(what);
    } catch (const nlohmann::json::exception& e) {
      ThrowUnreadable(path, e.what());
    } catch (const UnreadableValue& e) {
      ThrowUnreadable(path, e.what());
    }
  }
}
// The device columns platform, name, driver_version, type, compute_units,
// max_work_group_size, local_mem_bytes, global_mem_bytes, from column `first` on.
inline DeviceInfo ReadDevice(SQLite::Statement& q, int first) {
  DeviceInfo d;
  d.platform = q.getColumn(first).getString();
  d.name = q.getColumn(first + 1).getString();
  d.driver_version = q.getColumn(first + 2).getString();
  d.type = q.getColumn(first + 3).getString();
  d.compute_units = static_cast<unsigned>(q.getColumn(first + 4).getInt64());
  d.max_work_group_size = static_cast<size_t>(q.getColumn(first + 5).getInt64());
  d.local_mem_bytes = static_cast<size_t>(q.getColumn(first + 6).getInt64());
  d.global_mem_bytes = static_cast<size_t>(q.getColumn(first + 7).getInt64());
  return d;
}

int64_t EnsureWorkload(SQLite::Database& db, const Workload& workload, double flops);
int64_t EnsureTemplate(SQLite::Database& db, const TemplateRef& t);
int64_t EnsureDevice(SQLite::Database& db, const DeviceInfo& d);
// The columns ReadTrial reads, in its order (selected from the table named trials).
inline constexpr const char* kTrialRecordColumns =
    "trials.config_key, trials.config_json, trials.status, coalesce(trials.error, ''), trials.times_json, "
    "trials.time_s, trials.gflops, trials.compile_s, trials.run_id, trials.batch, trials.started_at, "
    "trials.finished_at, trials.transient";
inline constexpr int kTrialRecordColumnCount = 13;
// Reads columns 0 to 12 of a row selected with kTrialRecordColumns.
TrialRecord ReadTrial(SQLite::Statement& q);
// status "running" leaves ended_at NULL; any other ends the run now.
int64_t InsertRun(SQLite::Database& db, const TaskIds& task, const RunInfo& info, const std::string& status);
// Empty started_at/finished_at are written as the current time.
void InsertTrials(SQLite::Database& db, int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records);
// Drops the claims of processes that have died (killed, crashed): those of `task`, or all.
void DropDeadClaims(SQLite::Database& db, const TaskIds* task = nullptr);
// Marks 'failed' the runs and network runs left 'running' by a process of this host that has
// ended (killed with -9, a tensortune-mpi rank 0 lost), naming it in their error; returns how
// many. A database without such runs is not written.
int EndRunsOfGoneProcesses(SQLite::Database& db);

}  // namespace tt
