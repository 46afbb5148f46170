#include "ocl/driver_threads.h"

#include <pthread.h>

#include <cstddef>

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

}  // namespace tt::ocl
