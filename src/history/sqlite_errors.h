#pragma once
// How SQLite failures leave history/: internal to this folder (it exposes SQLiteCpp).
#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <stdexcept>
#include <string>

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

}  // namespace tt
