#include "cli/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace tt {

std::string ReadInputFile(const std::string& path, size_t limit) {
  // O_NONBLOCK: a FIFO without a writer must not block the open; fstat then refuses it.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw UserError("cannot read " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) throw UserError("cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw UserError(path + " is a directory, not a file to read");
  if (!S_ISREG(st.st_mode))
    throw UserError(path + " is not a regular file (a device, a FIFO or a socket): nothing read from it");
  const std::string too_large = path + " is larger than " + std::to_string(limit >> 20) + " MiB: too large to read";
  if (static_cast<uint64_t>(st.st_size) > limit) throw UserError(too_large);
  std::string bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UserError("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > limit) throw UserError(too_large);
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

}  // namespace tt
