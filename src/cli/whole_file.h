#pragma once
// Output files that are written whole or not at all.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace tt {

// Refuses (UserError) an output path that would destroy an input or cannot be a file: one
// that is, by any path, hard link or symbolic link, one of `inputs` or the -wal, -shm or
// -journal file beside one; a directory; or a path in a folder that does not exist.
void CheckOutputPath(const std::string& path, const std::vector<std::string>& inputs);

// Writes to a temporary file beside `path`, under a fresh name created exclusively (never
// through a link someone left there), renamed over `path` by Commit. Until then `path` stays
// as it was; an output that is not committed leaves nothing behind. A write that fails for
// want of space or of a working disk (ENOSPC, EDQUOT, EIO, ...) is an EnvironmentError, one
// the path is to blame for (a read-only or forbidden folder) a UserError; both name the reason.
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
