#pragma once
// tensortune::runtime: runs the kernels that tensortune tuned inside your program, on your
// OpenCL context, device, command queue and buffers.
//
//   tensortune::Runtime runtime(context, device);                  // yours; retained
//   auto history = tensortune::OpenHistory("history.db");          // <tensortune/history.h>
//   // or, without SQLite: auto pack = tensortune::KernelPack::Load("pack/");
//   tensortune::Operator conv = runtime.Prepare({"conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1"},
//                                               *history);
//   std::cout << conv.choice().note << "\n";                     // which config, and why
//   // conv.arguments(): the buffers in kernel order, with the layout each must hold
//   // (tensortune/layouts.h converts from NCHW / OIHW / row-major)
//   conv.Run(queue, {input, weights, output});
//
// The config of a workload is, in order of trust: the fastest verified trial of exactly this
// workload on this device; a config adapted from the most similar recorded workload on this
// device (by match score); a config recorded on another device; the device class's starting
// config of the kernel template (vector width, local memory: what tune-network's first round
// measures first). The Choice says which one was taken and why; PrepareOptions::least_trusted refuses
// the less trusted ones with an Error instead. Every config is checked against this device's
// limits before it is built, so a fallback is slower at worst, never wrong.
//
// Programs are built once per runtime (and, with RuntimeOptions::binary_cache, kept on disk
// between runs). A Runtime and its Operators may be used from several threads at once; the
// library holds no global mutable state. Errors are tensortune::Error with a code and one
// line of text.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tensortune/export.h"

namespace tensortune {

enum class ErrorCode {
  kInvalidArgument,  // a malformed workload, buffers that do not match the arguments, ...
  kMissingWorkload,  // nothing recorded fits the workload, and the fallbacks were refused
  kUnknownDevice,    // nothing recorded on this device, and other devices' records were refused
  kWrongDevice,      // a kernel pack exported for another device, refused or not checkable here
  kDamagedPack,      // a kernel pack that is incomplete, edited or of an unknown format
  kDatabase,         // the history database is missing or cannot be read
  kBuildFailed,      // the OpenCL compiler refused a kernel
  kOpenCL,           // an OpenCL call failed
};
TENSORTUNE_API const char* ToString(ErrorCode code);  // "missing-workload"

class TENSORTUNE_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// An operator instance, written as `tensortune tune --op OP --shape SHAPE` takes it:
// {"gemm", "512,1024,1024"}, {"conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1"},
// {"batch_matmul", "12,128,128,64", {"transpose_b"}}.
struct Workload {
  std::string op;
  std::string shape;
  std::vector<std::string> flags;
};
// The canonical key ("conv2d:n=1,ci=64,...", as the history stores it); throws Error
// (kInvalidArgument) for an unknown operator or a malformed shape.
TENSORTUNE_API std::string WorkloadKey(const Workload& workload);
TENSORTUNE_API Workload WorkloadFromKey(const std::string& key);

// What configs are chosen by: an OpenCL device as tensortune records it.
struct DeviceDescription {
  std::string platform;
  std::string name;
  std::string driver_version;
  std::string type;  // "cpu", "gpu", "accelerator", "other"
  size_t max_work_group_size = 0;
  size_t local_mem_bytes = 0;
  unsigned native_float_width = 0;  // 0: unknown
  unsigned compute_units = 0;       // 0: unknown
  // As the history records it: platform, name, driver and compute units (another number of
  // compute units is another device).
  TENSORTUNE_API std::string fingerprint() const;
};

// Where a config comes from, most trusted first.
enum class Origin {
  kExact,            // the fastest verified trial of exactly this workload on this device
  kSimilarWorkload,  // adapted from the most similar recorded workload on this device
  kOtherDevice,      // recorded on another device (this workload, or adapted from a similar one)
  kDefault,          // nothing recorded fits: the device's starting config (or, asked for, the untuned one)
  kOverride,         // given by the caller (Runtime::PrepareConfig)
};
TENSORTUNE_API const char* ToString(Origin origin);  // "exact", "similar-workload", ...

struct Choice {
  Origin origin = Origin::kDefault;
  std::string kernel_template;  // the sketch: "conv2d_oc_vec", "gemm_tiled", ...
  std::string config_key;       // "tile_x=[1,4,8,16];vec=4;..."
  std::string source_workload;  // the workload key the config was measured on (empty: default)
  std::string source_device;    // the device it was measured on (empty: default)
  double match_score = 0;       // of the source workload (1 for this very workload)
  double recorded_gflops = 0;   // measured at the source workload; 0 when none
  double recorded_time_s = 0;   // exact records only: the recorded median time of this workload
  std::string note;             // one line: what was chosen, and what was passed over
};

enum class Layout {
  kRowMajor,  // a matrix, or a batch of matrices: dims are (batch,) rows, columns
  kNCHW,
  kNCHW16c,  // [N][ceil(C/16)][H][W][16]: 16 channels innermost, the lanes past C zero
  kOIHW,
  kOIHW16o,  // [ceil(O/16)][I][H][W][16]: 16 output channels innermost, the lanes past O zero
  // 3x3 weights transformed for Winograd F(2x2,3x3) / F(4x4,3x3), as the conv2d_winograd_f2_nchwc
  // and _f4_nchwc sketches read them: [ceil(O/16)][alpha^2][I][16] (alpha 4 / 6); PackWeights
  // makes them from OIHW, ToPlain recovers OIHW.
  kWinogradF2x2,
  kWinogradF4x4,
  // A K x N matrix in panels of 16 columns, as gemm_rows_panels reads dense-layer weights:
  // [ceil(N/16)][K][16], the lanes past N zero; dims stay K, N. PackWeights makes it from row-major.
  kKN16n,
};
TENSORTUNE_API const char* ToString(Layout layout);  // "NCHW16c"
TENSORTUNE_API Layout PlainLayout(Layout layout);  // NCHW16c -> NCHW, OIHW16o and Winograd -> OIHW, KN16n -> row-major

// One buffer of a kernel, in the order Operator::Enqueue takes them: the inputs, then the output.
struct Argument {
  std::string name;  // "data", "weight", "out"; "A", "B", "C"; "X", "Y", "Z"
  Layout layout = Layout::kRowMajor;
  std::vector<int64_t> dims;  // logical, in the plain layout's order (NCHW, OIHW, rows x columns)
  size_t elements = 0;        // floats the buffer holds (channel-blocked padding included)
  bool is_output = false;
};

constexpr int kScratchArgument = -1;

// One kernel launch of a spec.
struct KernelLaunch {
  std::string kernel;  // the __kernel function
  unsigned dims = 1;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{0, 0, 0};  // all zero: the driver chooses
  std::vector<int> args;                 // per kernel argument: an Argument index, or kScratchArgument
};

// Everything needed to run one workload: what a kernel pack stores per task.
struct KernelSpec {
  std::string workload;  // key
  Choice choice;
  std::string source;  // OpenCL C
  std::string build_options;
  std::vector<Argument> arguments;
  std::vector<KernelLaunch> launches;  // in order on one queue: a pre-pass (gemm_tiled's pack_b) first
  size_t scratch_elements = 0;         // floats of the scratch buffer the pre-pass writes; 0: none
  double flops = 0;
};

struct PrepareOptions {
  std::string kernel_template;              // only this sketch; empty: whichever was recorded best
  Origin least_trusted = Origin::kDefault;  // refuse (Error) a choice less trusted than this
  // A kernel pack is code. By default only kernel sources that are this build's sketches are
  // run from a pack (buffers and NDRange always come from the workload and the sketch);
  // true also runs a pack's source that differs from its sketch: only for packs you trust.
  bool trust_pack_source = false;
};

// Recorded configs for a workload, as a ConfigSource finds them.
struct Candidates {
  std::vector<Choice> choices;  // most trusted first; the runtime takes the first valid on the device
  bool device_known = true;     // the source has records of this device
  std::string source_name;      // for messages: "history.db"
};

// Where recorded configs come from: a history database (tensortune/history.h), or your own.
class TENSORTUNE_API ConfigSource {
 public:
  virtual ~ConfigSource();
  virtual Candidates Find(const Workload& workload, const DeviceDescription& device,
                          const std::string& kernel_template) const = 0;
};

// A kernel pack written by `tensortune export-kernels`: per task the kernel source, its build
// options, NDRange, arguments and layouts, and a manifest. Needs no database.
class TENSORTUNE_API KernelPack {
 public:
  // Throws Error (kDamagedPack) for a missing or unreadable manifest, an unknown format, a
  // kernel source that is missing or differs from the one exported, or an edited manifest.
  static KernelPack Load(const std::string& directory);

  const std::string& directory() const { return directory_; }
  const DeviceDescription& device() const { return device_; }  // what it was exported for
  const std::string& network() const { return network_; }
  int64_t batch() const { return batch_; }
  const std::vector<KernelSpec>& kernels() const { return kernels_; }
  const KernelSpec* Find(const std::string& workload_key) const;  // nullptr when absent

 private:
  std::string directory_;
  DeviceDescription device_;
  std::string network_;
  int64_t batch_ = 0;
  std::vector<KernelSpec> kernels_;
};

struct EnqueueOptions {
  std::vector<cl_event> wait_for;           // events the first kernel waits for
  cl_event* done = nullptr;                 // receives the last kernel's event (release it)
  std::vector<cl_event>* events = nullptr;  // receives every kernel's event, in order (release them)
  cl_mem scratch = nullptr;                 // your scratch buffer (scratch_bytes()); default: the operator's
};

// A workload built for the runtime's device: cheap to copy (copies share the program).
class TENSORTUNE_API Operator {
 public:
  Operator() = default;  // empty until assigned one from Runtime::Prepare; using it is an Error
  const KernelSpec& spec() const;
  const Choice& choice() const { return spec().choice; }
  const std::vector<Argument>& arguments() const { return spec().arguments; }
  size_t scratch_bytes() const { return spec().scratch_elements * sizeof(float); }

  // Enqueues the kernels on `queue` (of the runtime's context and device) with `buffers` in
  // arguments() order, each at least arguments()[i].elements floats in arguments()[i].layout.
  // The operator's own scratch buffer is used by one call at a time (a call waits for the
  // previous one's kernels); pass options.scratch to run calls concurrently.
  void Enqueue(cl_command_queue queue, const std::vector<cl_mem>& buffers, const EnqueueOptions& options = {}) const;
  // Enqueue, then wait for the kernels to finish.
  void Run(cl_command_queue queue, const std::vector<cl_mem>& buffers) const;

  struct State;

 private:
  friend class Runtime;
  explicit Operator(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

struct RuntimeOptions {
  // A directory for program binaries, so that a later run (or another runtime) skips the
  // OpenCL compiler; created when missing. Empty: programs are kept in memory only.
  std::string binary_cache;
};

struct CacheStats {
  size_t built = 0;             // programs compiled from source
  size_t loaded_from_disk = 0;  // programs read from the binary cache
  size_t reused = 0;            // Prepare calls served by a program already in memory
};

class TENSORTUNE_API Runtime {
 public:
  // Retains `context` and `device` (which must belong to it). Throws Error (kOpenCL).
  Runtime(cl_context context, cl_device_id device, RuntimeOptions options = {});
  ~Runtime();
  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const DeviceDescription& device() const;

  // The workload with the best config `source` has for this device (see the top of this file).
  Operator Prepare(const Workload& workload, const ConfigSource& source, const PrepareOptions& options = {}) const;
  // The workload's kernel from a pack: as exported when the pack is for this device; from
  // another device (Origin::kOtherDevice) only when its config is valid here; a workload the
  // pack lacks is adapted from its most similar one, else the device's starting config.
  Operator Prepare(const Workload& workload, const KernelPack& pack, const PrepareOptions& options = {}) const;
  // The template's untuned default (Origin::kDefault).
  Operator PrepareDefault(const Workload& workload, const std::string& kernel_template = "") const;
  // A config of your own (Origin::kOverride), as a config key; checked against this device.
  Operator PrepareConfig(const Workload& workload, const std::string& kernel_template,
                         const std::string& config_key) const;
  // A spec as it is (from KernelPack::kernels(), or Choose).
  Operator Prepare(const KernelSpec& spec) const;
  // A device-side activation conversion between a plain layout and its blocked one (NCHW <->
  // NCHW16c), arguments {in, out}; `dims` are the logical NCHW dimensions.
  Operator PrepareConversion(Layout from, Layout to, const std::vector<int64_t>& dims) const;

  CacheStats cache_stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The spec Runtime::Prepare would build, for any device description (one of a history's
// recorded devices, say); nothing is compiled.
TENSORTUNE_API KernelSpec Choose(const Workload& workload, const ConfigSource& source, const DeviceDescription& device,
                                 const PrepareOptions& options = {});
TENSORTUNE_API KernelSpec Choose(const Workload& workload, const KernelPack& pack, const DeviceDescription& device,
                                 const PrepareOptions& options = {});

}  // namespace tensortune
