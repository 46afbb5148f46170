#pragma once
// Input files read whole, bounded: what a command reads must be a regular file of a size it
// can hold, never a device, a FIFO or a terminal it would read until memory runs out or wait on.
#include <cstddef>
#include <string>

namespace tt {

// The bytes of `path`. Refuses (UserError, naming the path and why) a directory, a device, a
// FIFO, a socket, a file that cannot be read, and one longer than `limit` bytes (also one that
// says it is empty but is not, as files under /proc do: it is read in pieces, never whole).
std::string ReadInputFile(const std::string& path, size_t limit);

}  // namespace tt
