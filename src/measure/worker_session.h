#pragma once
// The worker's side of measuring (tensortune-worker only): builds a config, checks its output
// against the CPU reference and times it. Holds one workload's inputs and reference at a time.
#include <list>
#include <memory>
#include <optional>

#include "core/measure_result.h"
#include "measure/user_kernel_session.h"
#include "measure/worker_protocol.h"
#include "ocl/context.h"

namespace tt {

// Whether a config's failure left the device's context unusable (a GPU kernel that faulted:
// every later call on that context fails too), rather than being the config's own error.
bool IsDeviceFault(const std::string& error);

class WorkerSession {
 public:
  explicit WorkerSession(const ocl::Device& device);
  ~WorkerSession();

  const DeviceInfo& device() const { return context_.device(); }
  MeasureResult Handle(const WorkerRequest& request);  // a status for every failure, never throws
  // Drops the context and everything made on it, and opens a new one (after a device fault).
  void StartFreshContext();
  int fresh_contexts() const { return fresh_contexts_; }

 private:
  struct Workspace;
  MeasureResult Prepare(const WorkerRequest& request);
  MeasureResult BuildAndRun(const WorkerRequest& request);
  MeasureResult BuildAhead(const WorkerRequest& request);
  MeasureResult Run(const ocl::Program& program, const WorkerRequest& request, double compile_s);
  ocl::Kernel StartPrePass(const ocl::Program& program, const PrePass& pre);

  Workspace& current() { return *workspaces_.front(); }
  size_t HeldBytes() const;

  ocl::Device device_handle_;
  int fresh_contexts_ = 0;
  ocl::Context context_;
  std::optional<UserKernelSession> user_kernels_;     // requests that name a user's kernel (on context_)
  std::list<std::unique_ptr<Workspace>> workspaces_;  // most recently used first
  std::unique_ptr<Workspace> build_space_;            // a builder's buffers: sized, never filled or checked
};

}  // namespace tt
