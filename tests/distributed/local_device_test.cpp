#include "distributed/local_device.h"

#include <gtest/gtest.h>

#include "core/errors.h"

namespace tt {
namespace {

DeviceInfo Device(std::string platform, std::string name) {
  DeviceInfo d;
  d.platform = std::move(platform);
  d.name = std::move(name);
  return d;
}

TEST(LocalDevice, GivesEachWorkerRankOfAHostItsOwnDevice) {
  const std::vector<DeviceInfo> devices = {Device("Portable Computing Language", "pthread-haswell"),
                                           Device("NVIDIA CUDA", "NVIDIA H100"), Device("NVIDIA CUDA", "NVIDIA H100")};
  EXPECT_EQ(ResolveLocalDevice("local", 0, devices), "0");
  EXPECT_EQ(ResolveLocalDevice("local", 2, devices), "2");
  // A fragment leaves the other devices out: the CPU here.
  EXPECT_EQ(ResolveLocalDevice("local:nvidia", 0, devices), "1");
  EXPECT_EQ(ResolveLocalDevice("local:NVIDIA", 1, devices), "2");
  EXPECT_EQ(ResolveLocalDevice("local:portable", 0, devices), "0");
  // Other specs are the measurer's to read.
  EXPECT_EQ(ResolveLocalDevice("1", 5, devices), "1");
  EXPECT_EQ(ResolveLocalDevice("fake:20", 5, devices), "fake:20");
  EXPECT_EQ(ResolveLocalDevice("localhost", 5, devices), "localhost");
}

TEST(LocalDevice, TooFewDevicesForTheRanksOfAHostIsBadInput) {
  const std::vector<DeviceInfo> devices = {Device("Portable Computing Language", "pthread-haswell"),
                                           Device("NVIDIA CUDA", "NVIDIA H100")};
  EXPECT_THROW(ResolveLocalDevice("local", 2, devices), UserError);
  try {
    ResolveLocalDevice("local:nvidia", 1, devices);
    FAIL() << "no second NVIDIA device";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("worker rank 2 needs a device of its own, but the host has 1 such device"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ResolveLocalDevice("local:amd", 0, devices), UserError);
}

}  // namespace
}  // namespace tt
