#pragma once
// Opening a tensortune database file: refusing what is not ours, creating and migrating
// what is. Internal to history/ (it exposes SQLiteCpp).
#include <SQLiteCpp/Database.h>

#include <memory>
#include <string>

namespace tt {

// Every migration embedded in this build; its count is the newest schema version.
int EmbeddedSchemaVersion();

// Throws UserError (one line naming the path) and writes nothing when the path cannot be
// used; otherwise returns a connection in WAL mode, with foreign keys on, a busy timeout,
// and every migration applied.
std::unique_ptr<SQLite::Database> OpenDatabaseFile(const std::string& path);

// Refuses (UserError, nothing written) a missing file, one that is not a tensortune database,
// one written by a newer tensortune, and, when `same_version`, one of an older schema.
void CheckDatabaseToRead(const std::string& path, bool same_version);
// A read-only connection to an existing tensortune database (any schema up to this build's).
std::unique_ptr<SQLite::Database> OpenDatabaseReadOnly(const std::string& path);

}  // namespace tt
