#pragma once
// A child process whose stdin and stdout are one socket to this process: lines go in and come
// out, with a deadline on every read. Sending to a dead child fails instead of raising SIGPIPE.
// The child's stderr (driver and compiler chatter) is kept, last few KiB only, to explain crashes.
#include <sys/types.h>

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace tt {

class WorkerProcess {
 public:
  // Throws EnvironmentError when the program cannot be started.
  WorkerProcess(const std::string& path, const std::vector<std::string>& args);
  ~WorkerProcess();  // closes the child's stdin, then kills it if it has not exited within a second
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool Send(std::string_view line);  // appends '\n'; false when the child has gone

  enum class ReadStatus { kLine, kTimeout, kClosed, kStopped };
  // The next line without its '\n'. kClosed: the child closed its stdout (it exited or crashed);
  // kStopped: `stop` (may be null) became true while waiting.
  ReadStatus ReadLine(double timeout_s, std::string& line, const std::atomic<bool>* stop = nullptr);

  // Waits up to grace_s for the child to exit, SIGKILLs it after that, reaps it and says how it
  // ended: "exit code 2", "signal 11: Segmentation fault".
  std::string WaitForExit(double grace_s);
  bool Crashed() const { return crashed_; }        // after WaitForExit: ended by a signal we did not send
  int TermSignal() const { return term_signal_; }  // after WaitForExit: the signal that ended it, or 0
  const std::string& error_output() const { return error_tail_; }  // the end of the child's stderr

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  void ReadErrors();  // drains what the child wrote to stderr

  int fd_ = -1;
  int error_fd_ = -1;
  std::string error_tail_;
  std::string buffer_;
  bool closed_ = false;
  bool reaped_ = false;
  bool crashed_ = false;
  int term_signal_ = 0;
  std::string exit_description_;
};

}  // namespace tt
