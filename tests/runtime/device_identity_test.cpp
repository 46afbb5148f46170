// Records of this device with another number of compute units (POCL tuned with one thread,
// run with two) are not this device's: the runtime takes them labelled as another device's.
#include <gtest/gtest.h>

#include "runtime_test_support.h"
#include "tensortune/history.h"

namespace tt {
namespace {

using tensortune::Origin;
using testing::ClEnvironment;
using testing::Db;
using testing::ScratchDir;

const tensortune::Workload kGemm{"gemm", "64,48,40", {}};

TEST(DeviceIdentity, RecordsWithAnotherNumberOfComputeUnitsAreAnotherDevices) {
  ClEnvironment cl;
  const Workload w = testing::Parse(kGemm);
  const std::string key =
      testing::FindConfig(w, "gemm_tiled", cl.info(), [](const ConfigSpace&, const Config&) { return true; });
  const tensortune::Runtime runtime(cl.context(), cl.device());
  EXPECT_EQ(runtime.device().compute_units, cl.info().compute_units);
  EXPECT_EQ(runtime.device().fingerprint(), cl.info().Fingerprint());

  ScratchDir other_dir;
  DeviceInfo more_units = cl.info();
  more_units.compute_units += 1;
  testing::Record(Db(other_dir), w, "gemm_tiled", key, more_units);
  const tensortune::Operator borrowed = runtime.Prepare(kGemm, *tensortune::OpenHistory(Db(other_dir)));
  EXPECT_EQ(borrowed.choice().origin, Origin::kOtherDevice);
  EXPECT_EQ(borrowed.choice().config_key, key);
  EXPECT_NE(borrowed.choice().note.find("compute units"), std::string::npos) << borrowed.choice().note;

  ScratchDir own_dir;
  testing::Record(Db(own_dir), w, "gemm_tiled", key, cl.info());
  const tensortune::Operator own = runtime.Prepare(kGemm, *tensortune::OpenHistory(Db(own_dir)));
  EXPECT_EQ(own.choice().origin, Origin::kExact);
}

}  // namespace
}  // namespace tt
