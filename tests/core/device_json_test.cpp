// Tier: unit
// The one device codec that the worker's hello and a kernel pack's manifest share. Before it,
// each kept its own: the pack's required native_float_width (which older workers do not send)
// and dropped compute_units and global_mem_bytes; the cases below fail either of those two.
#include "core/device_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>

namespace tt {
namespace {

DeviceInfo EveryFieldSet() {
  return {"Portable Computing Language", "cpu-haswell", "5.0", "cpu", 8, 4096, 65536, 1ull << 34, false, 16};
}

// Every field a device is written with (`imported` describes a record, not a device).
auto Fields(const DeviceInfo& d) {
  return std::tie(d.platform, d.name, d.driver_version, d.type, d.compute_units, d.max_work_group_size,
                  d.local_mem_bytes, d.global_mem_bytes, d.native_float_width);
}

TEST(DeviceJson, EveryFieldOfADeviceRoundTrips) {
  const DeviceInfo d = EveryFieldSet();
  const DeviceInfo back = DeviceFromJson(nlohmann::json::parse(DeviceToJson(d).dump()));
  EXPECT_EQ(Fields(back), Fields(d));
  EXPECT_EQ(std::get<8>(Fields(back)), 16u);
}

TEST(DeviceJson, ReadsWhatOlderWorkersAndPacksWrote) {
  // An older worker's hello: no native_float_width.
  const auto worker =
      nlohmann::json::parse(R"({"platform":"P","name":"D","driver_version":"1","type":"cpu","compute_units":2,)"
                            R"("max_work_group_size":256,"local_mem_bytes":1024,"global_mem_bytes":4096})");
  const DeviceInfo from_worker = DeviceFromJson(worker);
  EXPECT_EQ(from_worker.compute_units, 2u);
  EXPECT_EQ(from_worker.global_mem_bytes, 4096u);
  EXPECT_EQ(from_worker.native_float_width, 0u);
  // An older pack's manifest: no compute_units nor global_mem_bytes, and its fingerprint.
  const auto pack = nlohmann::json::parse(
      R"({"platform":"P","name":"D","driver_version":"1","type":"gpu","max_work_group_size":1024,)"
      R"("local_mem_bytes":49152,"native_float_width":1,"fingerprint":"P | D | 1"})");
  const DeviceInfo from_pack = DeviceFromJson(pack);
  EXPECT_EQ(from_pack.type, "gpu");
  EXPECT_EQ(from_pack.local_mem_bytes, 49152u);
  EXPECT_EQ(from_pack.native_float_width, 1u);
  EXPECT_EQ(from_pack.compute_units, 0u);
}

TEST(DeviceJson, AMissingOrMistypedRequiredFieldIsRefused) {
  auto j = DeviceToJson(EveryFieldSet());
  j.erase("max_work_group_size");
  EXPECT_THROW(DeviceFromJson(j), nlohmann::json::exception);
  j = DeviceToJson(EveryFieldSet());
  j["name"] = 3;
  EXPECT_THROW(DeviceFromJson(j), nlohmann::json::exception);
}

}  // namespace
}  // namespace tt
