#include "ocl/driver_threads.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace tt::ocl {
namespace {

constexpr size_t kDriverThreadStackBytes = size_t{64} << 20;

}  // namespace

void EnlargeDriverThreadStacks() {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return;
  if (pthread_attr_setstacksize(&attributes, kDriverThreadStackBytes) == 0) pthread_setattr_default_np(&attributes);
  pthread_attr_destroy(&attributes);
}

std::set<int> AllowedCpus() {
  std::set<int> cpus;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &mask)) cpus.insert(cpu);
  return cpus;
}

bool MayPinPoclWorkers(const char* pocl_affinity, const char* pocl_max_threads, const std::set<int>& allowed_cpus,
                       int online_cpus) {
  if (pocl_affinity) return false;  // the user's choice, 0 or 1
  int threads = online_cpus;
  if (pocl_max_threads) {
    const char* end = pocl_max_threads + std::strlen(pocl_max_threads);
    const auto [last, error] = std::from_chars(pocl_max_threads, end, threads);
    if (error != std::errc() || last != end) return false;
  }
  if (threads < 1) return false;
  for (int cpu = 0; cpu < threads; ++cpu)
    if (!allowed_cpus.count(cpu)) return false;
  return true;
}

bool MayPinPoclWorkersHere() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return MayPinPoclWorkers(std::getenv("POCL_AFFINITY"), std::getenv("POCL_MAX_PTHREAD_COUNT"), AllowedCpus(),
                           online > 0 ? static_cast<int>(online) : 0);
}

void PinPoclWorkersWherePossible() {
  // Once per process: after it, POCL_AFFINITY is set or the answer would be the same.
  static const bool pinned = MayPinPoclWorkersHere() && setenv("POCL_AFFINITY", "1", 0) == 0;
  (void)pinned;
}

void LeavePoclWorkersUnpinned() { setenv("POCL_AFFINITY", "0", 0); }

}  // namespace tt::ocl
