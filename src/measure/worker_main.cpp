// tensortune-worker: measures configs for OpenClMeasurer in a separate process, so that a
// kernel that crashes or hangs takes down only this process. Speaks worker_protocol.h on
// stdin/stdout: `tensortune-worker [--device SPEC] [--builder]` (a builder leaves the CPU
// driver's threads unpinned: ocl/driver_threads.h).
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <optional>
#include <string>

#include "core/errors.h"
#include "measure/worker_protocol.h"
#include "measure/worker_session.h"
#include "ocl/driver_threads.h"

namespace {

void WriteLine(int fd, std::string line) {
  line += '\n';
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(1);  // the measurer has gone
    written += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_spec = "0";
  bool builder = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      device_spec = argv[++i];
    } else if (arg == "--builder") {
      builder = true;
    } else {
      std::cerr << "usage: tensortune-worker [--device INDEX_OR_NAME] [--builder]  (started by tensortune)\n";
      return 2;
    }
  }
  // Ctrl-C in the terminal reaches the whole process group: the measurer decides when to stop,
  // and a worker killed by it would look like a crashing config. If the measurer dies, this
  // worker must not outlive it, even when stuck in a hanging kernel.
  signal(SIGINT, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  tt::ocl::EnlargeDriverThreadStacks();
  if (builder) tt::ocl::LeavePoclWorkersUnpinned();
  if (getppid() == 1) return 1;  // the parent died before prctl took effect
  // Drivers may print to stdout: give them stderr, and keep the real stdout for the protocol.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);

  std::optional<tt::WorkerSession> session;
  try {
    session.emplace(tt::ocl::SelectDevice(device_spec));
  } catch (const tt::UserError& e) {
    WriteLine(protocol_fd, tt::EncodeHello(tt::WorkerHello::Failed(e.what(), true)));
    return 2;
  } catch (const std::exception& e) {
    WriteLine(protocol_fd, tt::EncodeHello(tt::WorkerHello::Failed(e.what(), false)));
    return 3;
  }
  WriteLine(protocol_fd, tt::EncodeHello(tt::WorkerHello::Ready(session->device())));

  std::string line;
  while (std::getline(std::cin, line)) {
    const auto request = tt::DecodeRequest(line);
    const tt::MeasureResult result =
        request ? session->Handle(*request)
                : tt::MeasureResult::Failure(tt::MeasureStatus::kRuntimeError, "malformed request: " + line);
    WriteLine(protocol_fd, tt::EncodeResult(result));
  }
  return 0;
}
