// Threads created after EnlargeDriverThreadStacks get a stack large enough for POCL's
// work-group arrays (a 4096-work-item implicit-GEMM config of VGG-16's 224x224 layer crashed
// run-network with the default 8 MiB while the worker, which enlarged its stacks, measured it).
#include "ocl/driver_threads.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <thread>

namespace tt::ocl {
namespace {

size_t NewThreadStackBytes() {
  size_t bytes = 0;
  std::thread([&] {
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
    pthread_attr_getstacksize(&attributes, &bytes);
    pthread_attr_destroy(&attributes);
  }).join();
  return bytes;
}

TEST(DriverThreads, ThreadsCreatedAfterwardsGetAtLeast64MiBOfStack) {
  EnlargeDriverThreadStacks();
  EXPECT_GE(NewThreadStackBytes(), size_t{64} << 20);
}

}  // namespace
}  // namespace tt::ocl
