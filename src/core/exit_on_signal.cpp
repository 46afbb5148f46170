#include "core/exit_on_signal.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace tt {
namespace {

// Fixed slots the handler can read without allocating: a path (malloc'ed) or null. Slots are
// taken in order and never reused, so that "latest first" holds.
constexpr int kSlots = 1 << 14;
std::atomic<char*> g_paths[kSlots];
std::atomic<int> g_used{0};  // slots at or past this are null
static_assert(std::atomic<char*>::is_always_lock_free, "read from a signal handler");

// Async-signal-safe: unlink, rmdir and _exit only.
void OnSignal(int) {
  for (int i = std::min(g_used.load(), kSlots) - 1; i >= 0; --i) {
    const char* path = g_paths[i].load();
    if (path && unlink(path) != 0) rmdir(path);  // a folder: empty by now, its files were later
  }
  _exit(130);
}

}  // namespace

void ExitOnSignal() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, signal);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

void RemovedOnSignal::Add(const std::string& path) {
  const int slot = g_used.fetch_add(1);
  if (slot >= kSlots) return;  // past the last slot, the path is simply not cleaned up
  char* copy = strdup(path.c_str());
  if (!copy) return;
  g_paths[slot].store(copy);
  slots_.push_back(slot);
}

void RemovedOnSignal::Release() {
  for (auto it = slots_.rbegin(); it != slots_.rend(); ++it) std::free(g_paths[*it].exchange(nullptr));
  slots_.clear();
}

}  // namespace tt
