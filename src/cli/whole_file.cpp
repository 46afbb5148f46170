#include "cli/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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
  const fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string name = (dir / ("." + target.filename().string() + ".partial-XXXXXX")).string();
  // mkstemp opens with O_CREAT | O_EXCL: a name someone else holds, a symbolic link included, is never opened.
  const int fd = mkstemp(name.data());
  if (fd < 0) ThrowWriteError(path, errno);
  temporary_ = name;
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
}

std::ostream& WholeFile::stream() { return *stream_; }

void WholeFile::Commit() {
  stream_->flush();
  if (!buffer_->Finish()) ThrowWriteError(path_, buffer_->error());
  if (rename(temporary_.c_str(), path_.c_str()) != 0) ThrowWriteError(path_, errno);
  committed_ = true;
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
