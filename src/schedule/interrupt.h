#pragma once
// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) during a run: the first asks the run to stop (the config in flight is
// abandoned, every finished one is kept); a second ends the process at once.
#include <atomic>
#include <csignal>

namespace tt {

class InterruptGuard {
 public:
  InterruptGuard();  // one at a time per process
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  const std::atomic<bool>* flag() const;
  bool interrupted() const { return flag()->load(); }

 private:
  struct sigaction old_int_ {
  }, old_term_{}, old_hup_{};
};

// The exit code of a run that was interrupted (128 + SIGINT, as shells report it).
constexpr int kInterruptedExitCode = 130;

}  // namespace tt
