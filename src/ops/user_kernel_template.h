#pragma once
// A user's OpenCL kernel as a kernel template, so that the engine tunes, records and resumes
// it like the built-in ones. Kernel Tuner's rules: one knob per tunable parameter; a config is
// valid when every restriction holds and the block fits the device's work-group limit; every
// parameter (and each block size name, 1 when it is not a parameter) is passed as -D NAME=VALUE;
// the global size is the problem size divided by the product of the grid divisors (rounded
// up) times the block size, the local size the block size.
//
// Its workload is the operator "kernel_tuner" with the problem size as dimensions p0, p1, ...
// (as for an imported Kernel Tuner cache); its identity in the history is the kernel's name
// and a hash of its source, argument types, block size names, grid divisors and compiler
// options, so that a run of the same kernel resumes and never measures a config twice, and
// its records at other problem sizes are found by the match score.
#include <string>

#include "ops/kernel_template.h"
#include "ops/user_kernel_restriction.h"
#include "ops/user_kernel_spec.h"

namespace tt {

inline constexpr const char* kUserKernelOp = "kernel_tuner";
inline constexpr double kUserKernelFlops = 1e9;  // no FLOP count: "GFLOPS" read as runs per second

class UserKernelTemplate : public KernelTemplate {
 public:
  // Throws UserError for a restriction or grid divisor that does not parse, or a block size
  // name that is neither a parameter nor absent.
  explicit UserKernelTemplate(UserKernelSpec spec);

  std::string_view name() const override { return spec_.kernel_name; }
  std::string_view op() const override { return kUserKernelOp; }
  std::string_view kernel_name() const override { return spec_.kernel_name; }
  std::string_view source() const override { return spec_.source; }
  bool listed() const override { return false; }
  std::string_view worker_spec() const override { return staged_path_; }

  const UserKernelSpec& spec() const { return spec_; }
  Workload ProblemWorkload() const;  // kernel_tuner:p0=...,p1=...
  std::string IdentityHash() const;  // the source hash the history records
  // The knobs as the history's user-defined spaces hold them (interchange/kernel_tuner_cache.h).
  std::string SpaceJson() const;
  // The parameter values of `config` as labels, in tune_params order.
  std::vector<std::string> Labels(const ConfigSpace& space, const Config& config) const;
  // Writes the staged spec (with the reference config's launch, when there is one) to `path`
  // for the worker processes; throws EnvironmentError when it cannot.
  void Stage(const std::string& path);

  ConfigSpace Space(const Workload& workload, const DeviceLimits& limits) const override;
  std::string BuildOptions(const Workload& workload, const ConfigSpace& space, const Config& config) const override;
  LaunchGeometry Geometry(const Workload& workload, const ConfigSpace& space, const Config& config) const override;
  std::vector<BufferSpec> Buffers(const Workload&) const override { return {}; }
  double Flops(const Workload&) const override { return kUserKernelFlops; }
  void Reference(const Workload&, const std::vector<const float*>&, float*) const override;

 private:
  std::vector<double> Numbers(const ConfigSpace& space, const Config& config) const;
  std::string OptionsOf(const std::vector<std::string>& labels, const std::vector<double>& numbers) const;
  LaunchGeometry GeometryOf(const std::vector<double>& numbers) const;

  UserKernelSpec spec_;
  std::vector<std::string> names_;
  std::vector<Restriction> restrictions_;
  std::array<std::vector<Restriction>, 3> grid_div_;
  std::string staged_path_;
};

}  // namespace tt
