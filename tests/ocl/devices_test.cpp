#include "ocl/devices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "core/errors.h"

namespace tt {
namespace {

TEST(Devices, ListsAtLeastOneDeviceWithSaneLimits) {
  const auto devices = ListDevices();
  ASSERT_FALSE(devices.empty()) << "no OpenCL device: is pocl installed?";
  for (const DeviceInfo& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.platform.empty());
    EXPECT_TRUE(d.type == "cpu" || d.type == "gpu" || d.type == "accelerator" || d.type == "other") << d.type;
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GE(d.max_work_group_size, 1u);
    EXPECT_GT(d.local_mem_bytes, 0u);
    EXPECT_GT(d.global_mem_bytes, d.local_mem_bytes);
  }
}

TEST(Devices, SelectsByIndex) {
  const auto devices = ListDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(ocl::SelectDevice("0").info.Fingerprint(), devices[0].Fingerprint());
  const std::string last = std::to_string(devices.size() - 1);
  EXPECT_EQ(ocl::SelectDevice(last).info.Fingerprint(), devices.back().Fingerprint());
}

// The middle of a name with its case flipped.
std::string FlippedFragment(const std::string& name) {
  std::string fragment = name.substr(name.size() / 3, std::max<size_t>(1, name.size() / 3));
  std::transform(fragment.begin(), fragment.end(), fragment.begin(),
                 [](unsigned char c) { return std::isupper(c) ? std::tolower(c) : std::toupper(c); });
  return fragment;
}

TEST(Devices, SelectsByCaseInsensitiveNameFragment) {
  const auto devices = ListDevices();
  ASSERT_FALSE(devices.empty());
  // Device 0 matches its own fragments and is the first candidate, so it wins.
  EXPECT_EQ(ocl::SelectDevice(FlippedFragment(devices[0].name)).info.Fingerprint(), devices[0].Fingerprint());
  EXPECT_EQ(ocl::SelectDevice(FlippedFragment(devices[0].platform)).info.Fingerprint(), devices[0].Fingerprint());
}

TEST(Devices, RefusesUnknownDevices) {
  const auto devices = ListDevices();
  const std::string past_end = std::to_string(devices.size());
  try {
    ocl::SelectDevice(past_end);
    FAIL() << "device " << past_end << " accepted";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("unknown device '" + past_end + "': " + past_end + " devices available"), std::string::npos)
        << message;
    EXPECT_NE(message.find(devices[0].name), std::string::npos) << message;
  }
  EXPECT_THROW(ocl::SelectDevice("no-such-device-xyz"), UserError);
  EXPECT_THROW(ocl::SelectDevice(""), UserError);
}

}  // namespace
}  // namespace tt
