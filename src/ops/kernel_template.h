#pragma once
// A kernel template described as data: which knobs a workload gets, how a config becomes
// build options and an NDRange, and what the right answer is. One per .cl file variant.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.h"
#include "core/workload.h"
#include "space/config_space.h"

namespace tt {

struct DeviceLimits {
  size_t max_work_group_size = 0;
  size_t local_mem_bytes = 0;
  unsigned native_float_width = 0;  // floats per SIMD register; 0: unknown
};

// Limits so large that no config of any template reaches them: a device whose limits are not
// known constrains nothing.
inline constexpr DeviceLimits kNoDeviceLimits{size_t{1} << 30, size_t{1} << 40, 0};

// The limits of a recorded device. A limit that is not known (0: an imported device, an
// AutoTVM target or a Kernel Tuner GPU, whose limits the history stores as NULL) means "no
// constraint known", never "nothing fits": its records stay points of the space.
DeviceLimits LimitsOf(const DeviceInfo& device);

// The float vector widths worth a knob on this device: powers of two from `from` up to the
// native width (at least `from`, at most 16); up to 16 when the width is unknown, so that a
// replayed space holds every width a device may have recorded.
std::vector<int64_t> FloatVectorWidths(const DeviceLimits& limits, int64_t from);

struct LaunchGeometry {
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};
  unsigned dims = 1;
};

// A kernel of the same program launched before the template's kernel in every run and timed
// with it: it rewrites input `input` (a Buffers() index) into a scratch buffer of
// `scratch_elements` floats, in a layout the main kernel reads better (panels of B for a GEMM);
// the main kernel then gets that scratch buffer in the input's place.
struct PrePass {
  std::string kernel_name;
  size_t input = 0;
  size_t scratch_elements = 0;
  LaunchGeometry geometry;
};

// A float buffer passed to the kernel, in argument order. Inputs are filled with small
// integers so that any summation order gives the exact reference result.
struct BufferSpec {
  std::string name;
  size_t elements = 0;
  bool is_output = false;
};

// The product of `extents`, saturating at SIZE_MAX instead of wrapping around: a shape typed
// with huge sizes then reads as too large rather than as a small one.
size_t ElementCount(std::initializer_list<int64_t> extents);

class KernelTemplate {
 public:
  virtual ~KernelTemplate() = default;
  virtual std::string_view name() const = 0;         // "gemm_tiled": unique, stored in history
  virtual std::string_view op() const = 0;           // "gemm"
  virtual std::string_view kernel_name() const = 0;  // the __kernel function
  virtual std::string_view source() const = 0;       // OpenCL C text, embedded from kernels/
  virtual bool listed() const { return true; }       // false for test-only templates
  virtual std::string_view description() const { return {}; }
  // Tiles staged in __local memory: a gain where local memory is on-chip (GPUs), a copy on a
  // CPU device, whose local memory is ordinary memory. Tuning tries such sketches last there.
  virtual bool stages_in_local_memory() const { return false; }
  // Float vectors over channels (output channels, or the channel blocks of NCHW16c), the way
  // CPU libraries (oneDNN, TVM's x86 schedules) vectorize convolutions. Tuning tries such
  // sketches first on a CPU device.
  virtual bool vectorizes_channels() const { return false; }
  // Written for a narrow class of shapes (WhyNotApplicable turns the rest away), on which it
  // beats its operator's general templates: where it applies, tuning looks at it first.
  virtual bool specialist() const { return false; }
  // Why this template cannot compute `workload` (e.g. Winograd needs a 3x3 stride-1 kernel).
  virtual std::optional<std::string> WhyNotApplicable(const Workload&) const { return std::nullopt; }

  virtual ConfigSpace Space(const Workload& workload, const DeviceLimits& limits) const = 0;
  virtual std::string BuildOptions(const Workload& workload, const ConfigSpace& space, const Config& config) const = 0;
  virtual LaunchGeometry Geometry(const Workload& workload, const ConfigSpace& space, const Config& config) const = 0;
  // The packing kernel this config runs before the main one; none by default.
  virtual std::optional<PrePass> PrePassOf(const Workload&, const ConfigSpace&, const Config&) const {
    return std::nullopt;
  }
  virtual std::vector<BufferSpec> Buffers(const Workload& workload) const = 0;
  // The Buffers() indices stored in blocks of 16 channels (NCHW16c activations, OIHW16o weights;
  // a matrix's columns: KN16n) rather than in their plain layout (ops/launch_plan.h says each
  // buffer's layout); none by default.
  virtual std::vector<size_t> ChannelBlockedBuffers(const Workload&) const { return {}; }
  // A template whose weights arrive transformed for Winograd F(m x m, 3 x 3) (ops/winograd.h,
  // layout ops/launch_plan.h's kWinogradF2 / kWinogradF4): m; 0 for all others.
  virtual int winograd_tile() const { return 0; }
  // Turns the random data the measurer drew for input `index` into what that input holds: by
  // default the data as drawn; transformed weights computed from plain ones drawn in their
  // place (so that they are weights some plain filter has). One function with PackWeights.
  virtual void DeriveInput(const Workload&, size_t /*index*/, std::vector<float>& /*data*/) const {}
  // Sets the values of a valid `config` that depend on the workload's shape beyond the space's
  // extents, for `workload` on `device` (the config stays valid): applied to device starts and
  // to configs transferred from other shapes, whose values were chosen for the source's shape.
  // Returns what it changed ("" for nothing, the default).
  virtual std::string FitToTheShape(const Workload&, const ConfigSpace&, const DeviceInfo&, Config&) const {
    return {};
  }
  // The verification's bound on |got - reference| / (1 + |reference|) (the measurer's check on
  // small integer inputs); a Winograd sketch's is derived in docs/templates.md.
  virtual double tolerance() const { return 1e-3; }
  virtual double Flops(const Workload& workload) const = 0;
  // Fills `output` from `inputs` (the non-output buffers, in Buffers() order).
  virtual void Reference(const Workload& workload, const std::vector<const float*>& inputs, float* output) const = 0;

  // A user's kernel (user_kernel_template.h): the staged spec file the worker process loads
  // it from; empty for the built-in templates, which the worker finds by name.
  virtual std::string_view worker_spec() const { return {}; }

  // Identifies this template's code in the history: the hash of KernelCode(source()), so that
  // an edited comment or a reformatted line leaves the recorded trials this version's.
  std::string SourceHash() const;
};

// A kernel source as the compiler reads it: continued lines joined, comments dropped, each line's
// whitespace collapsed to single spaces, blank lines dropped; string and character literals as
// written. Sources that differ only in comments or layout have the same code.
std::string KernelCode(std::string_view source);

// 16 hex digits identifying `text` (a template's source, a user-defined space's definition).
std::string TextHash(std::string_view text);

// An operator: its shape syntax and the templates (sketches) that implement it.
struct OperatorInfo {
  std::string name;          // "gemm"
  std::string shape_syntax;  // "M,N,K"
  std::string description;
  std::vector<std::string> flags;  // 0/1 dimensions set by switches: "transpose_a" <- --transpose-a
};

std::vector<OperatorInfo> Operators();
// Parses a --shape for `op`: positional ("512,1024,1024") or named ("n=1,ci=64,...") as the
// operator declares; `flags` name 0/1 dimensions to set (e.g. "transpose_a"). Throws
// UserError naming the problem.
Workload ParseWorkload(std::string_view op, std::string_view shape, const std::vector<std::string>& flags = {});
const KernelTemplate* FindTemplate(std::string_view name);  // nullptr when unknown
// `name` among the operator's templates, or its first applicable one when empty; throws
// UserError when unknown or not applicable to the workload.
const KernelTemplate& PickTemplate(const Workload& workload, std::string_view name);
std::vector<const KernelTemplate*> TemplatesFor(std::string_view op);
std::vector<const KernelTemplate*> ApplicableTemplates(const Workload& workload);
std::vector<const KernelTemplate*> AllTemplates();
std::string_view KernelSource(std::string_view file);  // embedded kernels/<file>; throws when absent
// The embedded files joined in order: shared definitions first, then the kernel.
std::string JoinKernelSources(std::initializer_list<std::string_view> files);

}  // namespace tt
