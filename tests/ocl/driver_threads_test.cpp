// Threads created after EnlargeDriverThreadStacks get a stack large enough for POCL's
// work-group arrays (a 4096-work-item implicit-GEMM config of VGG-16's 224x224 layer crashed
// run-network with the default 8 MiB while the worker, which enlarged its stacks, measured it).
// POCL's workers are pinned one per core where the process may run on those cores.
#include "ocl/driver_threads.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ocl/context.h"
#include "ocl/devices.h"

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

TEST(DriverThreads, PinsOnlyWhereTheUserHasNotChosenAndEveryCoreIsAllowed) {
  EXPECT_TRUE(MayPinPoclWorkers(nullptr, nullptr, {0, 1}, 2));
  EXPECT_TRUE(MayPinPoclWorkers(nullptr, nullptr, {0, 1, 2, 3}, 4));
  EXPECT_TRUE(MayPinPoclWorkers(nullptr, "2", {0, 1, 2}, 8));  // two workers: cores 0 and 1
  EXPECT_TRUE(MayPinPoclWorkers(nullptr, "1", {0}, 2));
  EXPECT_FALSE(MayPinPoclWorkers("0", nullptr, {0, 1}, 2));   // the user's choice stands
  EXPECT_FALSE(MayPinPoclWorkers("1", nullptr, {0, 1}, 2));   // (already set: nothing to do)
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, nullptr, {0}, 2));  // taskset -c 0: worker 1 would leave it
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, "1", {1}, 2));      // taskset -c 1: worker 0 would go to core 0
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, "4", {0, 1}, 2));   // cores the process may not use
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, "two", {0, 1}, 2));
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, "2x", {0, 1}, 2));
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, "0", {0, 1}, 2));
  EXPECT_FALSE(MayPinPoclWorkers(nullptr, nullptr, {0, 1}, 0));
}

TEST(DriverThreads, ABuilderLeavesTheWorkersUnpinnedUnlessTheUserChose) {
  const char* given = std::getenv("POCL_AFFINITY");
  const std::optional<std::string> before = given ? std::optional<std::string>(given) : std::nullopt;
  unsetenv("POCL_AFFINITY");
  LeavePoclWorkersUnpinned();
  ASSERT_NE(std::getenv("POCL_AFFINITY"), nullptr);
  EXPECT_STREQ(std::getenv("POCL_AFFINITY"), "0");
  setenv("POCL_AFFINITY", "1", 1);
  LeavePoclWorkersUnpinned();
  EXPECT_STREQ(std::getenv("POCL_AFFINITY"), "1");
  if (before) {
    setenv("POCL_AFFINITY", before->c_str(), 1);
  } else {
    unsetenv("POCL_AFFINITY");
  }
}

// Each thread of this process that may run on exactly one CPU: that CPU.
std::vector<std::string> SingleCpuThreads() {
  std::vector<std::string> cpus;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return cpus;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream status(std::string("/proc/self/task/") + entry->d_name + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) {
        const std::string list = line.substr(line.find_first_not_of(" \t", 18));
        if (list.find_first_of(",-") == std::string::npos) cpus.push_back(list);
      }
  }
  closedir(tasks);
  return cpus;
}

// End to end, in this test's own process (ctest runs each test alone): once the platforms are
// listed and a context made, POCL's workers run on one core each, cores 0 and up, where the rule
// allows it; where it does not, no thread was moved to a core the process may not use.
TEST(DriverThreads, PoclsWorkersArePinnedWhereTheRuleAllows) {
  const bool may_pin = MayPinPoclWorkersHere();
  const Device device = SelectDevice("0");
  if (device.info.platform.find("Portable Computing Language") == std::string::npos)
    GTEST_SKIP() << "device 0 is not POCL's: " << device.info.platform;
  const Context context(device);
  const std::vector<std::string> pinned = SingleCpuThreads();
  if (may_pin) {
    ASSERT_NE(std::getenv("POCL_AFFINITY"), nullptr);
    EXPECT_STREQ(std::getenv("POCL_AFFINITY"), "1");
    EXPECT_NE(std::find(pinned.begin(), pinned.end(), "0"), pinned.end()) << "no thread pinned to core 0";
  } else {
    const std::set<int> allowed = AllowedCpus();
    for (const std::string& cpu : pinned) EXPECT_TRUE(allowed.count(std::stoi(cpu))) << "a thread on core " << cpu;
  }
}

}  // namespace
}  // namespace tt::ocl
