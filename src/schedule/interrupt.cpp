#include "schedule/interrupt.h"

#include <unistd.h>

namespace tt {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

void OnSignal(int signal) {
  if (g_interrupted.exchange(true)) {  // the second one: no more waiting
    ::signal(signal, SIG_DFL);
    raise(signal);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = false;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
  sigaction(SIGHUP, &action, &old_hup_);  // a closed terminal: the run ends as interrupted
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

const std::atomic<bool>* InterruptGuard::flag() const { return &g_interrupted; }

}  // namespace tt
