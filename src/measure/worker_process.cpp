#include "measure/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/errors.h"

extern char** environ;

namespace tt {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point Deadline(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string Describe(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    return "signal " + std::to_string(sig) + ": " + strsignal(sig);
  }
  return "exit code " + std::to_string(WEXITSTATUS(wait_status));
}

}  // namespace

WorkerProcess::WorkerProcess(const std::string& path, const std::vector<std::string>& args) {
  if (access(path.c_str(), X_OK) != 0)
    throw EnvironmentError("cannot run worker program '" + path + "': " + std::strerror(errno));
  int sockets[2], errors[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw EnvironmentError(std::string("socketpair failed: ") + std::strerror(errno));
  if (pipe2(errors, O_CLOEXEC) != 0) {
    close(sockets[0]);
    close(sockets[1]);
    throw EnvironmentError(std::string("pipe failed: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies, so only stdin, stdout and stderr reach the child.
  posix_spawn_file_actions_adddup2(&actions, sockets[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errors[1], STDERR_FILENO);
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int error = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(sockets[1]);
  close(errors[1]);
  if (error != 0) {
    close(sockets[0]);
    close(errors[0]);
    throw EnvironmentError("cannot start worker program '" + path + "': " + std::strerror(error));
  }
  fd_ = sockets[0];
  error_fd_ = errors[0];
  fcntl(error_fd_, F_SETFL, O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    shutdown(fd_, SHUT_WR);  // end of input: an idle worker exits by itself
    WaitForExit(1.0);
  }
  close(fd_);
  if (error_fd_ >= 0) close(error_fd_);
}

bool WorkerProcess::Send(std::string_view line) {
  std::string data(line);
  data += '\n';
  for (size_t sent = 0; sent < data.size();) {
    const ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

WorkerProcess::ReadStatus WorkerProcess::ReadLine(double timeout_s, std::string& line, const std::atomic<bool>* stop) {
  constexpr int64_t kStopPollMs = 50;
  const auto deadline = Deadline(timeout_s);
  while (true) {
    if (const size_t end = buffer_.find('\n'); end != std::string::npos) {
      line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      return ReadStatus::kLine;
    }
    if (closed_) return ReadStatus::kClosed;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return ReadStatus::kTimeout;
    if (stop && stop->load()) return ReadStatus::kStopped;
    pollfd p[2] = {{fd_, POLLIN, 0}, {error_fd_, POLLIN, 0}};  // a negative fd is ignored
    const int ready = poll(p, 2, static_cast<int>(std::min<int64_t>(left, stop ? kStopPollMs : 60'000)));
    if (ready <= 0) continue;  // timeout re-checked above; EINTR retried
    if (p[1].revents) ReadErrors();
    if (!p[0].revents) continue;
    char chunk[65536];
    const ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n > 0)
      buffer_.append(chunk, static_cast<size_t>(n));
    else if (n == 0 || (errno != EINTR && errno != EAGAIN))
      closed_ = true;
  }
}

std::string WorkerProcess::WaitForExit(double grace_s) {
  if (reaped_) return exit_description_;
  const auto deadline = Deadline(grace_s);
  int status = 0;
  bool killed = false;
  while (true) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (r == 0 && !killed && Clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      killed = true;
    }
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(killed ? 1 : 5));
  }
  reaped_ = true;
  ReadErrors();
  crashed_ = !killed && WIFSIGNALED(status);
  term_signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  exit_description_ = Describe(status);
  return exit_description_;
}

void WorkerProcess::ReadErrors() {
  constexpr size_t kKeep = 4096;
  char chunk[4096];
  while (error_fd_ >= 0) {
    const ssize_t n = read(error_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: nothing more for now
    if (n == 0) {
      close(error_fd_);
      error_fd_ = -1;
      return;
    }
    error_tail_.append(chunk, static_cast<size_t>(n));
    if (error_tail_.size() > kKeep) error_tail_.erase(0, error_tail_.size() - kKeep);
  }
}

}  // namespace tt
