#pragma once
// Opening a tensortune database file: refusing what is not ours, creating and migrating
// what is, and the defences every connection gets. Internal to history/ (it exposes SQLiteCpp).
#include <SQLiteCpp/Database.h>

#include <memory>
#include <optional>
#include <string>

namespace tt {

// Every migration embedded in this build; its count is the newest schema version.
int EmbeddedSchemaVersion();

// A database file is input like any other: its schema, values and SQL may be hostile. Every
// connection tensortune opens gets SQLITE_DBCONFIG_DEFENSIVE, no triggers, no FTS3 tokenizer
// pointers (fts3_tokenizer() and fts5() are refused by an authorizer), no extension loading,
// and a 64 MiB limit on a value's length.
void HardenConnection(SQLite::Database& db);

// Throws UserError (one line naming the path) and writes nothing when the path cannot be
// used; otherwise returns a connection in WAL mode, with foreign keys on, a busy timeout,
// and every migration applied.
std::unique_ptr<SQLite::Database> OpenDatabaseFile(const std::string& path);

// Refuses (UserError, nothing written) a missing file, one that is not a tensortune database
// (a foreign schema, triggers, virtual tables, views in place of tables included), one written
// by a newer tensortune, and, when `same_version`, one of an older schema. Returns its version.
int CheckDatabaseToRead(const std::string& path, bool same_version);
// A read-only connection to an existing tensortune database (any schema up to this build's):
// creates nothing beside it when it cannot (a read-only file system or directory).
std::unique_ptr<SQLite::Database> OpenDatabaseReadOnly(const std::string& path);
// A read-only connection that creates nothing beside the file (immutable while no -wal file
// shows a writer at work), for inspecting it before it is used.
std::unique_ptr<SQLite::Database> OpenDatabaseForInspection(const std::string& path);
// A database in memory with every migration of this build applied (hardened too): what a
// statement is checked against before a database is created or migrated for it.
std::unique_ptr<SQLite::Database> OpenReferenceSchema();

// Why tensortune would refuse the database of this connection (opened for writing, so of this
// build's schema): its application id or schema version changed, or its schema differs from
// what the migrations create (a dropped view, a unique index on a table of tensortune's, ...).
std::optional<std::string> WhySchemaRefused(SQLite::Database& db);

// The URI under which a checked database is opened, or attached, read-only: `mode=ro`, and
// `immutable=1` where no writer can be at work (no -wal file, nothing may be created beside it).
std::string ReadOnlyUri(const std::string& path);

}  // namespace tt
