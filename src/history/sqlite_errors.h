#pragma once
// How SQLite failures and rows leave history/: internal to this folder (it exposes SQLiteCpp).
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <stdexcept>
#include <string>

#include "core/device_info.h"
#include "core/errors.h"

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

}  // namespace tt
