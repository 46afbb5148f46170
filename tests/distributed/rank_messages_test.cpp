#include "distributed/rank_messages.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

TEST(RankMessages, WorkAndResultsSurviveTheRoundTrip) {
  const RankWork work{"gemm_tiled", "gemm:m=64,n=64,k=64", 0.002, {7, 8}, {"[[\"vec\", 4]]", "[]"}};
  const auto decoded = DecodeWork(EncodeWork(work));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->template_name, work.template_name);
  EXPECT_EQ(decoded->workload_key, work.workload_key);
  EXPECT_DOUBLE_EQ(decoded->best_time_s, 0.002);
  EXPECT_EQ(decoded->ids, work.ids);
  EXPECT_EQ(decoded->configs, work.configs);

  RankResults results;
  results.ids = {7, 8};
  results.results.push_back(MeasureResult::Success({0.001, 0.003}, 2e6, 0.5));
  results.results.back().wall_s = 1.25;
  results.results.push_back(MeasureResult::Failure(MeasureStatus::kTimeout, "killed after 10 s"));
  results.results.back().transient = true;
  results.broken = "the worker cannot restart";
  const auto back = DecodeResults(EncodeResults(results));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->ids, results.ids);
  ASSERT_EQ(back->results.size(), 2u);
  EXPECT_TRUE(back->results[0].ok());
  EXPECT_EQ(back->results[0].times_s, results.results[0].times_s);
  EXPECT_DOUBLE_EQ(back->results[0].gflops, results.results[0].gflops);
  EXPECT_DOUBLE_EQ(back->results[0].wall_s, 1.25);
  EXPECT_EQ(back->results[1].status, MeasureStatus::kTimeout);
  EXPECT_TRUE(back->results[1].transient);
  EXPECT_FALSE(back->results[0].transient);
  EXPECT_EQ(back->broken, results.broken);
}

TEST(RankMessages, SetupHelloAndStopSurviveTheRoundTrip) {
  const auto setup = DecodeSetup(EncodeSetup({2.5, 3, 0.05, 77}));
  ASSERT_TRUE(setup);
  EXPECT_DOUBLE_EQ(setup->timeout_s, 2.5);
  EXPECT_EQ(setup->builders, 3);
  EXPECT_DOUBLE_EQ(setup->min_time_s, 0.05);
  EXPECT_EQ(setup->max_repeats, 77);

  DeviceInfo device;
  device.platform = "Portable Computing Language";
  device.name = "cpu";
  device.driver_version = "3.1";
  const auto ready = DecodeRankHello(EncodeRankHello({WorkerHello::Ready(device), "node7", "1"}));
  ASSERT_TRUE(ready && ready->hello.device);
  EXPECT_EQ(ready->hello.device->Fingerprint(), device.Fingerprint());
  EXPECT_EQ(ready->host, "node7");
  EXPECT_EQ(ready->device_spec, "1");
  const auto failed = DecodeRankHello(EncodeRankHello({WorkerHello::Failed("no device 9", true), "node7", "9"}));
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->hello.device);
  EXPECT_TRUE(failed->hello.user_error);
  EXPECT_EQ(failed->hello.error, "no device 9");

  EXPECT_FALSE(DecodeStop(EncodeStop({false}))->finalize);
  EXPECT_TRUE(DecodeStop(EncodeStop({true}))->finalize);
}

TEST(RankMessages, MalformedTextDecodesToNothing) {
  EXPECT_FALSE(DecodeWork("{"));
  EXPECT_FALSE(DecodeWork(R"({"template":"t","workload":"w","best_time_s":0,"ids":[1,2],"configs":["[]"]})"));
  EXPECT_FALSE(DecodeResults(R"({"items":[{"id":1,"result":"not json","transient":false,"wall_s":0}],"broken":""})"));
  EXPECT_FALSE(DecodeResults(R"({"items":[]})"));
  EXPECT_FALSE(DecodeRankHello(R"({"hello":"{}","host":"h","device_spec":"0"})"));
  EXPECT_FALSE(DecodeSetup("[]"));
  EXPECT_FALSE(DecodeStop(""));
}

}  // namespace
}  // namespace tt
