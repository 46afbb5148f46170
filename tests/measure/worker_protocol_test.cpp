// Tier: unit (no device, no program started; the folder's other tests are not)
#include "measure/worker_protocol.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

TEST(WorkerProtocol, RequestsRoundTrip) {
  WorkerRequest request;
  request.template_name = "gemm_tiled";
  request.workload_key = "gemm:m=64,n=64,k=64";
  request.build_options = "-D TX0=4 -D \"Q=1\"";
  request.geometry = {{64, 16, 1}, {16, 4, 1}, 2};
  request.flops = 524288;
  request.min_time_s = 0.25;
  request.max_repeats = 7;
  const auto decoded = DecodeRequest(EncodeRequest(request));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->kind, WorkerRequest::Kind::kMeasure);
  EXPECT_EQ(decoded->template_name, request.template_name);
  EXPECT_EQ(decoded->workload_key, request.workload_key);
  EXPECT_EQ(decoded->build_options, request.build_options);
  EXPECT_EQ(decoded->geometry.global, request.geometry.global);
  EXPECT_EQ(decoded->geometry.local, request.geometry.local);
  EXPECT_EQ(decoded->geometry.dims, 2u);
  EXPECT_EQ(decoded->flops, request.flops);
  EXPECT_EQ(decoded->min_time_s, request.min_time_s);
  EXPECT_EQ(decoded->max_repeats, 7);
  EXPECT_EQ(EncodeRequest(request).find('\n'), std::string::npos);
  EXPECT_FALSE(decoded->pre_pass);
  EXPECT_TRUE(decoded->user_kernel.empty());
}

TEST(WorkerProtocol, UserKernelSpecPathRoundTrips) {
  WorkerRequest request;
  request.kind = WorkerRequest::Kind::kBuild;
  request.user_kernel = "/tmp/tensortune-kernel-x/spec with space.json";
  const auto decoded = DecodeRequest(EncodeRequest(request));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->kind, WorkerRequest::Kind::kBuild);
  EXPECT_EQ(decoded->user_kernel, request.user_kernel);
}

TEST(WorkerProtocol, PrePassRoundTrips) {
  WorkerRequest request;
  request.pre_pass = PrePass{"pack_b", 1, 4096, {{64, 16, 2}, {64, 1, 1}, 3}};
  const auto decoded = DecodeRequest(EncodeRequest(request));
  ASSERT_TRUE(decoded && decoded->pre_pass);
  EXPECT_EQ(decoded->pre_pass->kernel_name, "pack_b");
  EXPECT_EQ(decoded->pre_pass->input, 1u);
  EXPECT_EQ(decoded->pre_pass->scratch_elements, 4096u);
  EXPECT_EQ(decoded->pre_pass->geometry.global, request.pre_pass->geometry.global);
  EXPECT_EQ(decoded->pre_pass->geometry.local, request.pre_pass->geometry.local);
  EXPECT_EQ(decoded->pre_pass->geometry.dims, 3u);
}

TEST(WorkerProtocol, ResultsRoundTripExactly) {
  const MeasureResult ok = MeasureResult::Success({1e-3, 3e-3, 2e-3}, 1e6, 0.125);
  const auto decoded = DecodeResult(EncodeResult(ok));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->status, MeasureStatus::kOk);
  EXPECT_EQ(decoded->times_s, ok.times_s);
  EXPECT_EQ(decoded->time_s, ok.time_s);
  EXPECT_EQ(decoded->gflops, ok.gflops);
  EXPECT_EQ(decoded->compile_s, ok.compile_s);

  const MeasureResult bad = MeasureResult::Failure(MeasureStatus::kCompileError, "line 1\nbad \xff byte");
  const auto decoded_bad = DecodeResult(EncodeResult(bad));
  ASSERT_TRUE(decoded_bad);
  EXPECT_EQ(decoded_bad->status, MeasureStatus::kCompileError);
  EXPECT_EQ(decoded_bad->error.substr(0, 10), "line 1\nbad");
}

TEST(WorkerProtocol, HelloCarriesTheDeviceOrTheError) {
  DeviceInfo device;
  device.platform = "P";
  device.name = "D";
  device.max_work_group_size = 256;
  const auto ready = DecodeHello(EncodeHello(WorkerHello::Ready(device)));
  ASSERT_TRUE(ready && ready->device);
  EXPECT_EQ(ready->device->Fingerprint(), device.Fingerprint());
  EXPECT_EQ(ready->device->max_work_group_size, 256u);
  device.native_float_width = 16;
  EXPECT_EQ(DecodeHello(EncodeHello(WorkerHello::Ready(device)))->device->native_float_width, 16u);
  // A worker that does not report the width (an older build) still says hello: width unknown.
  const auto older =
      DecodeHello(R"({"device":{"platform":"P","name":"D","driver_version":"1","type":"cpu",)"
                  R"("compute_units":2,"max_work_group_size":256,"local_mem_bytes":0,"global_mem_bytes":0}})");
  ASSERT_TRUE(older && older->device);
  EXPECT_EQ(older->device->native_float_width, 0u);
  const auto failed = DecodeHello(EncodeHello(WorkerHello::Failed("unknown device 'x'", true)));
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->device);
  EXPECT_TRUE(failed->user_error);
  EXPECT_EQ(failed->error, "unknown device 'x'");
}

TEST(WorkerProtocol, MalformedLinesDecodeToNothing) {
  EXPECT_FALSE(DecodeResult("not json"));
  EXPECT_FALSE(DecodeResult(R"({"status":"exploded","times_s":[],"time_s":0,"gflops":0,"compile_s":0,"error":""})"));
  EXPECT_FALSE(DecodeRequest(R"({"kind":"measure"})"));
  EXPECT_FALSE(DecodeHello("[]"));
}

}  // namespace
}  // namespace tt
