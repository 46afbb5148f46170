// History across devices: device similarity and the records a warm start reads.
#include "warmstart/cross_device.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "space/knob_schema.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

DeviceInfo Gpu(std::string name, unsigned cus, size_t local_mem, std::string driver = "1") {
  DeviceInfo d;
  d.platform = "OpenCL";
  d.name = std::move(name);
  d.driver_version = std::move(driver);
  d.type = "gpu";
  d.compute_units = cus;
  d.max_work_group_size = 1024;
  d.local_mem_bytes = local_mem;
  d.global_mem_bytes = size_t{16} << 30;
  return d;
}

DeviceInfo Imported(std::string name) {
  DeviceInfo d;
  d.platform = "Kernel Tuner";
  d.name = std::move(name);
  d.type = "gpu";
  d.imported = true;
  return d;
}

TEST(DeviceSimilarity, RanksDevicesByWhatIsKnownOfThem) {
  const DeviceInfo a4000 = Gpu("NVIDIA RTX A4000", 48, 48 << 10), a6000 = Gpu("NVIDIA RTX A6000", 84, 48 << 10);
  const DeviceInfo w6600 = Gpu("AMD Radeon PRO W6600", 28, 64 << 10);
  DeviceInfo cpu = Gpu("pthread-Intel(R) Xeon(R) CPU", 16, 256 << 10);
  cpu.type = "cpu";
  EXPECT_EQ(DeviceSimilarity(a4000, a4000), 1.0);
  EXPECT_LT(DeviceSimilarity(a4000, Gpu("NVIDIA RTX A4000", 48, 48 << 10, "2")), 1.0);  // another driver
  EXPECT_DOUBLE_EQ(DeviceSimilarity(a4000, w6600), DeviceSimilarity(w6600, a4000));
  EXPECT_GT(DeviceSimilarity(a4000, a6000), DeviceSimilarity(a4000, w6600));
  EXPECT_GT(DeviceSimilarity(a4000, w6600), DeviceSimilarity(a4000, cpu));
  EXPECT_GT(DeviceSimilarity(w6600, cpu), 0.0);
  // Imported devices are known by name only: vendor and family still count.
  EXPECT_GT(DeviceSimilarity(Imported("NVIDIA RTX A4000"), Imported("NVIDIA RTX A6000")),
            DeviceSimilarity(Imported("NVIDIA RTX A4000"), Imported("AMD Radeon PRO W6600")));
  EXPECT_EQ(FeaturesOfDevice(Imported("AMD Radeon PRO W6600")).vendor, "amd");
  EXPECT_EQ(FeaturesOfDevice(Imported("NVIDIA GeForce RTX 3090")).vendor, "nvidia");
}

class CrossDevice : public ::testing::Test {
 protected:
  CrossDevice() {
    dir_ = fs::temp_directory_path() / ("tt_cross_device_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    store_ = SqliteHistoryStore::Open((dir_ / "h.db").string());
    space_.AddKnob(Knob::Discrete("block", {16, 32, 64, 128}));
    space_.AddKnob(Knob::Discrete("tile", {1, 2, 4}));
  }
  ~CrossDevice() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  TemplateRef Ref() const { return {"user_kernel", "kernel_tuner", "src-1", KnobSchema(space_)}; }

  // Every config of the space on `device`, GFLOPS from `scale`; tile=4 fails to build.
  void Record(const DeviceInfo& device, double scale) {
    const TaskIds ids = store_->EnsureTask(workload_, 1e9, Ref(), device);
    const int64_t run = store_->BeginRun(ids, {"grid", "", 1, "test", 12});
    std::vector<TrialRecord> trials;
    for (uint64_t i = 0; i < space_.Size(); ++i) {
      const Config c = space_.FromIndex(i);
      TrialRecord r;
      r.config_key = space_.Key(c);
      r.config_json = space_.ToJson(c);
      r.result = space_.Scalar(c, "tile") == 4 ? MeasureResult::Failure(MeasureStatus::kCompileError, "x")
                                               : MeasureResult::Success({1.0 / (scale * (1 + c[0] + c[1]))}, 1e9, 0);
      trials.push_back(r);
    }
    store_->RecordBatch(run, ids, trials);
  }

  fs::path dir_;
  std::unique_ptr<SqliteHistoryStore> store_;
  ConfigSpace space_;
  Workload workload_{"kernel_tuner", {{"p0", 4096}}};
};

TEST_F(CrossDevice, ReadsTheMostSimilarOtherDevicesWithTheirSimilarity) {
  const DeviceInfo a4000 = Gpu("NVIDIA RTX A4000", 48, 48 << 10), a6000 = Gpu("NVIDIA RTX A6000", 84, 48 << 10);
  const DeviceInfo w6600 = Gpu("AMD Radeon PRO W6600", 28, 64 << 10);
  Record(a4000, 1);
  Record(a6000, 2);
  Record(w6600, 3);

  const CrossDeviceStart start = CrossDeviceWarmStart(*store_, workload_, Ref(), a4000);
  ASSERT_EQ(start.sources.size(), 2u);                          // never the target itself
  EXPECT_EQ(start.sources[0].device.name, "NVIDIA RTX A6000");  // most similar first
  EXPECT_EQ(start.sources[1].device.name, "AMD Radeon PRO W6600");
  EXPECT_EQ(start.sources[0].records, 12u);
  ASSERT_EQ(start.warm_start.transfer.size(), 24u);
  size_t failures = 0;
  for (const TransferSample& s : start.warm_start.transfer) {
    EXPECT_EQ(s.similarity, start.sources[static_cast<size_t>(s.source)].similarity);
    failures += s.gflops == 0;
  }
  EXPECT_EQ(failures, 8u);  // tile=4 on both
  EXPECT_NE(start.Describe().find("NVIDIA RTX A6000 (similarity 0."), std::string::npos) << start.Describe();

  CrossDeviceOptions one;
  one.max_devices = 1;
  EXPECT_EQ(CrossDeviceWarmStart(*store_, workload_, Ref(), a4000, one).sources.size(), 1u);
  CrossDeviceOptions named;
  named.devices = {"W6600"};
  const auto from_amd = CrossDeviceWarmStart(*store_, workload_, Ref(), a4000, named);
  ASSERT_EQ(from_amd.sources.size(), 1u);
  EXPECT_EQ(from_amd.sources[0].device.name, "AMD Radeon PRO W6600");
  named.devices = {"A4000"};
  EXPECT_THROW(CrossDeviceWarmStart(*store_, workload_, Ref(), a4000, named), UserError);
  named.devices = {"MI250"};
  EXPECT_THROW(CrossDeviceWarmStart(*store_, workload_, Ref(), a4000, named), UserError);
  // A new device with nothing recorded starts from all three.
  EXPECT_EQ(CrossDeviceWarmStart(*store_, workload_, Ref(), Gpu("NVIDIA RTX A5000", 64, 48 << 10)).sources.size(), 3u);
}

}  // namespace
}  // namespace tt
