#pragma once
// The worker's side of measuring (tensortune-worker only): builds a config, checks its output
// against the CPU reference and times it. Holds one workload's inputs and reference at a time.
#include <list>
#include <memory>

#include "core/measure_result.h"
#include "measure/user_kernel_session.h"
#include "measure/worker_protocol.h"
#include "ocl/context.h"

namespace tt {

class WorkerSession {
 public:
  explicit WorkerSession(const ocl::Device& device);
  ~WorkerSession();

  const DeviceInfo& device() const { return context_.device(); }
  MeasureResult Handle(const WorkerRequest& request);  // a status for every failure, never throws

 private:
  struct Workspace;
  MeasureResult Prepare(const WorkerRequest& request);
  MeasureResult BuildAndRun(const WorkerRequest& request);
  MeasureResult BuildAhead(const WorkerRequest& request);
  MeasureResult Run(const ocl::Program& program, const WorkerRequest& request, double compile_s);
  ocl::Kernel StartPrePass(const ocl::Program& program, const PrePass& pre);

  Workspace& current() { return *workspaces_.front(); }
  size_t HeldBytes() const;

  ocl::Context context_;
  UserKernelSession user_kernels_{context_};          // requests that name a user's kernel
  std::list<std::unique_ptr<Workspace>> workspaces_;  // most recently used first
  std::unique_ptr<Workspace> build_space_;            // a builder's buffers: sized, never filled or checked
};

}  // namespace tt
