#include "cli/whole_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <streambuf>

#include "core/errors.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

// Errors of the environment (exit 3), not of the path the user chose (exit 2).
bool IsEnvironmentErrno(int error) {
  return error == ENOSPC || error == EDQUOT || error == EIO || error == EFBIG || error == ENOMEM || error == ENFILE ||
         error == EMFILE;
}

[[noreturn]] void ThrowWriteError(const std::string& what, int error) {
  const std::string message = "cannot write " + what + ": " + std::strerror(error);
  if (IsEnvironmentErrno(error)) throw EnvironmentError(message);
  throw UserError(message);
}

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// The file behind `path` when it exists and is no regular file or directory: a character
// device, a FIFO, a socket. Such a file is written through, never replaced.
bool IsSpecialFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// The descriptor among standard output and standard error that `path` names ("-" or any path
// to the same file, as /dev/stdout is), or -1.
int StandardDescriptorFor(const std::string& path) {
  if (path == "-") return STDOUT_FILENO;
  struct stat target {};
  if (stat(path.c_str(), &target) != 0) return -1;
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino) return fd;
  }
  return -1;
}

// ".NAME.partial-", NAME cut so that the temporary's name (6 more characters) stays within
// NAME_MAX however long the target's is.
std::string TemporaryPrefix(const fs::path& target) {
  constexpr size_t kNameMax = 255;
  const std::string dot = ".", suffix = ".partial-";
  std::string name = target.filename().string();
  const size_t room = kNameMax - dot.size() - suffix.size() - 6;
  if (name.size() > room) name.resize(room);
  return dot + name + suffix;
}

// Removes temporaries of the same target that a killed writer left (SIGKILL, a crash): those
// no process holds locked that have not changed for a minute.
void RemoveStaleTemporaries(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    const int fd = open(it->path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    std::error_code time_ec;
    const auto changed = fs::last_write_time(it->path(), time_ec);
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !time_ec && now - changed > std::chrono::minutes(1) &&
        flock(fd, LOCK_EX | LOCK_NB) == 0)
      unlink(it->path().c_str());
    close(fd);
  }
}

// The path as it will be resolved once it exists: links followed as far as they go.
fs::path Resolved(const fs::path& path) {
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path) : resolved;
}

}  // namespace

// A streambuf over a file descriptor that remembers why a write failed.
class WholeFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd, bool owned = true) : fd_(fd), owned_(owned) { setp(data_, data_ + sizeof data_); }
  ~Buffer() override {
    if (fd_ >= 0 && owned_) close(fd_);
  }
  int error() const { return error_; }
  // Flushes; false (error() says why) when a write failed.
  bool Flush() { return sync() == 0; }
  // Flushes and closes when owned (no fsync: devices and pipes have nothing to sync); false
  // (error() says why) when anything failed.
  bool Close() {
    const bool flushed = sync() == 0;
    if (owned_ && fd_ >= 0 && close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return flushed && error_ == 0;
  }
  // Flushes, syncs and closes; false (error() says why) when anything failed.
  bool Finish() {
    const bool flushed = sync() == 0;
    if (flushed && fsync(fd_) != 0) error_ = errno;
    if (close(fd_) != 0 && error_ == 0) error_ = errno;
    fd_ = -1;
    return flushed && error_ == 0;
  }

 protected:
  int overflow(int c) override {
    if (sync() != 0) return traits_type::eof();
    if (c != traits_type::eof()) {
      *pptr() = static_cast<char>(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    if (error_ != 0) return -1;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return -1;
      }
      p += n;
    }
    setp(data_, data_ + sizeof data_);
    return 0;
  }

 private:
  int fd_;
  bool owned_;
  int error_ = 0;
  char data_[1 << 16];
};

void CheckOutputPath(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw UserError("the output path is empty");
  // Standard output, a device or a FIFO is written through: no database is one.
  if (StandardDescriptorFor(path) >= 0 || IsSpecialFile(path)) return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UserError("cannot write " + path + ": it is a directory");
  const fs::path out = Resolved(path);
  for (const std::string& input : inputs) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      const fs::path file = input + suffix;
      if (SameFile(path, file) || out == Resolved(file))
        throw UserError("cannot write " + path + ": it is " +
                        (*suffix ? "the " + std::string(suffix + 1) + " file of the database " : "the database ") +
                        input + " being read");
    }
  }
  fs::path dir = out.parent_path();
  if (!fs::is_directory(dir, ec))
    throw UserError("cannot write " + path + ": directory " + dir.string() + " does not exist");
}

WholeFile::WholeFile(const std::string& path) : path_(path) {
  CheckOutputPath(path, {});
  if (const int fd = StandardDescriptorFor(path); fd >= 0) {
    std::cout.flush();
    std::fflush(stdout);
    through_ = true;
    buffer_ = std::make_unique<Buffer>(fd, /*owned=*/false);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
    return;
  }
  if (IsSpecialFile(path)) {
    // O_NOCTTY: a terminal named here must not become the controlling one. A FIFO blocks
    // here until it has a reader, as `cat > fifo` does.
    const int fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) ThrowWriteError(path, errno);
    through_ = true;
    buffer_ = std::make_unique<Buffer>(fd);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
    return;
  }
  const fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  const std::string prefix = TemporaryPrefix(target);
  RemoveStaleTemporaries(dir, prefix);
  std::string name = (dir / (prefix + "XXXXXX")).string();
  // mkstemp opens with O_CREAT | O_EXCL: a name someone else holds, a symbolic link included, is never opened.
  const int fd = mkstemp(name.data());
  if (fd < 0) ThrowWriteError(path, errno);
  temporary_ = name;
  cleanup_.Add(temporary_);
  // Held until the temporary is renamed or removed (a dup: closing the written descriptor
  // before the rename keeps it): a temporary nobody holds is stale.
  lock_fd_ = dup(fd);
  if (lock_fd_ >= 0) flock(lock_fd_, LOCK_EX | LOCK_NB);
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);  // as a file created by open(2) would have
  buffer_ = std::make_unique<Buffer>(fd);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

WholeFile::~WholeFile() {
  stream_.reset();
  buffer_.reset();
  if (!committed_ && !temporary_.empty()) unlink(temporary_.c_str());
  if (lock_fd_ >= 0) close(lock_fd_);
}

std::ostream& WholeFile::stream() { return *stream_; }

void WholeFile::Commit() {
  stream_->flush();
  if (through_) {
    if (!buffer_->Close()) ThrowWriteError(path_, buffer_->error());
    committed_ = true;
    return;
  }
  if (!buffer_->Finish()) ThrowWriteError(path_, buffer_->error());
  if (rename(temporary_.c_str(), path_.c_str()) != 0) ThrowWriteError(path_, errno);
  committed_ = true;
  cleanup_.Release();
  if (lock_fd_ >= 0) close(lock_fd_);
  lock_fd_ = -1;
}

StandardOutput::StandardOutput() {
  std::cout.flush();
  std::fflush(stdout);
  buffer_ = std::make_unique<WholeFile::Buffer>(STDOUT_FILENO, /*owned=*/false);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

StandardOutput::~StandardOutput() = default;

std::ostream& StandardOutput::stream() { return *stream_; }

void StandardOutput::Finish() {
  if (!buffer_->Flush()) ThrowWriteError("standard output", buffer_->error());
}

void WriteWholeFile(const std::string& path, const std::string& text) {
  WholeFile file(path);
  file.stream() << text;
  file.Commit();
}

void CheckWritten(std::ostream& out, const std::string& what) {
  errno = 0;
  out.flush();
  // std::cout hands its text to C's stdout, which reports a failed write only when flushed.
  if (out && (&out != &std::cout || (std::fflush(stdout) == 0 && !std::ferror(stdout)))) return;
  const int error = errno != 0 ? errno : EIO;
  ThrowWriteError(what, error);
}

}  // namespace tt
