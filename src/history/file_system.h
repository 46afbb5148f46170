#pragma once
// The file system a database lives on. SQLite's WAL mode needs shared memory that every
// process sees coherently, which network and cluster file systems (NFS, SMB, Lustre, GPFS,
// BeeGFS, ...) do not give: WAL there corrupts or deadlocks. A database on one is kept in
// rollback-journal mode instead.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tt {

// The name of the network file system holding `path` (its folder when it does not exist yet),
// or nullopt for a local one or when the type cannot be read.
std::optional<std::string> NetworkFileSystemOf(const std::string& path);

// Replaces statfs's f_type for NetworkFileSystemOf (tests); an empty function restores statfs.
void SetFileSystemTypeProbe(std::function<std::optional<int64_t>(const std::string&)> probe);

}  // namespace tt
