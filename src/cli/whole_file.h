#pragma once
// Output files that are written whole or not at all.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/exit_on_signal.h"

namespace tt {

// Refuses (UserError) an output path that would destroy an input or cannot be a file: one
// that is, by any path, hard link or symbolic link, one of `inputs` or the -wal, -shm or
// -journal file beside one; a directory; or a path in a folder that does not exist. "-",
// standard output by any name, a device and a FIFO are accepted: they are written through.
void CheckOutputPath(const std::string& path, const std::vector<std::string>& inputs);

// Writes to a temporary file beside `path`, under a fresh name created exclusively (never
// through a link someone left there, within NAME_MAX however long `path`'s name is), renamed
// over `path` by Commit; a signal that ends the process removes it, and stale ones of the same
// target that a killed writer left (unlocked, unchanged for a minute) are removed. Until then `path` stays
// as it was; an output that is not committed leaves nothing behind. A write that fails for
// want of space or of a working disk (ENOSPC, EDQUOT, EIO, ...) is an EnvironmentError, one
// the path is to blame for (a read-only or forbidden folder) a UserError; both name the reason.
// A path that is "-", standard output or error by another name (/dev/stdout), a character
// device or a FIFO is written through instead, as it is, never renamed over; Commit flushes it.
class WholeFile {
 public:
  explicit WholeFile(const std::string& path);
  ~WholeFile();
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  std::ostream& stream();
  void Commit();

  class Buffer;

 private:
  std::string path_, temporary_;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
  bool committed_ = false;
  bool through_ = false;     // written through: a device, a FIFO or standard output
  RemovedOnSignal cleanup_;  // the temporary, should a signal end the process
  int lock_fd_ = -1;         // holds the temporary's lock: one without is stale
};

// Standard output through the same kind of buffer, for output of any size: Finish flushes it
// and throws, as WholeFile does, naming why a write failed.
class StandardOutput {
 public:
  StandardOutput();
  ~StandardOutput();
  StandardOutput(const StandardOutput&) = delete;
  StandardOutput& operator=(const StandardOutput&) = delete;

  std::ostream& stream();
  void Finish();

 private:
  std::unique_ptr<WholeFile::Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// `text` to `path` through a WholeFile.
void WriteWholeFile(const std::string& path, const std::string& text);

// Throws EnvironmentError (or UserError, as WholeFile decides) when `out` could not be written:
// output to a full disk or a closed pipe must not end with exit code 0.
void CheckWritten(std::ostream& out, const std::string& what);

}  // namespace tt
