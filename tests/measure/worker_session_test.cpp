#include "measure/worker_session.h"

#include <gtest/gtest.h>

#include "ocl/devices.h"
#include "ops/selftest_template.h"

namespace tt {
namespace {

WorkerRequest MeasureRequest(SelftestBehaviour behaviour) {
  const KernelTemplate& kernel = SelftestFaultsTemplate();
  const Workload workload = Workload::FromKey("selftest:n=4096");
  const ConfigSpace space = kernel.Space(workload, {});
  const Config config{*space.knob(0).Find({static_cast<int64_t>(behaviour)})};
  WorkerRequest request;
  request.template_name = kernel.name();
  request.workload_key = workload.Key();
  request.build_options = kernel.BuildOptions(workload, space, config);
  request.geometry = kernel.Geometry(workload, space, config);
  request.flops = kernel.Flops(workload);
  request.min_time_s = 0.001;
  request.max_repeats = 5;
  return request;
}

TEST(DeviceFault, WhatDriversAnswerAfterAFaultIsOneAndAConfigsOwnErrorIsNot) {
  EXPECT_TRUE(IsDeviceFault("clFinish failed: CL_OUT_OF_RESOURCES"));
  EXPECT_TRUE(IsDeviceFault("clEnqueueReadBuffer failed: unknown OpenCL error (-9999)"));
  EXPECT_TRUE(IsDeviceFault("clEnqueueNDRangeKernel failed: CL_INVALID_COMMAND_QUEUE"));
  EXPECT_FALSE(IsDeviceFault("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"));
  EXPECT_FALSE(IsDeviceFault("element 3: expected 1, got 2"));
}

// After a fault the session drops its context; the next config is measured on a fresh one, its
// inputs and reference made again.
TEST(WorkerSession, MeasuresCorrectlyOnAFreshContext) {
  WorkerSession session(ocl::SelectDevice("0"));
  const WorkerRequest request = MeasureRequest(SelftestBehaviour::kOk);
  const MeasureResult before = session.Handle(request);
  ASSERT_TRUE(before.ok()) << before.error;
  session.StartFreshContext();
  EXPECT_EQ(session.fresh_contexts(), 1);
  const MeasureResult after = session.Handle(request);
  ASSERT_TRUE(after.ok()) << after.error;
  EXPECT_GT(after.time_s, 0);
  const MeasureResult wrong = session.Handle(MeasureRequest(SelftestBehaviour::kWrongAnswer));
  EXPECT_EQ(wrong.status, MeasureStatus::kWrongAnswer);
  EXPECT_EQ(session.fresh_contexts(), 1) << "a wrong answer is the config's, not the device's";
}

}  // namespace
}  // namespace tt
