#pragma once
// Opening a tensortune database file: refusing what is not ours, creating and migrating
// what is. Internal to history/ (it exposes SQLiteCpp).
#include <SQLiteCpp/Database.h>

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace tt {

// Every migration embedded in this build; its count is the newest schema version.
int EmbeddedSchemaVersion();

// Throws UserError (one line naming the path) and writes nothing when the path cannot be
// used; otherwise returns a connection in WAL mode, with foreign keys on, a busy timeout,
// and every migration applied.
std::unique_ptr<SQLite::Database> OpenDatabaseFile(const std::string& path);

// SQLite failures after Open are a broken environment (disk full) unless a record broke a
// constraint, which is the caller's bug. A database locked by another process is waited for:
// each attempt already waits the busy timeout, and a whole transaction is tried again until
// kLockPatience has passed, so a long writer elsewhere costs time, not the run.
constexpr auto kLockPatience = std::chrono::minutes(5);

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
      throw EnvironmentError(what);
    }
  }
}

}  // namespace tt
