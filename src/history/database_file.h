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

}  // namespace tt
