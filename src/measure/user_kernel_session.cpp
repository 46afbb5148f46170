#include "measure/user_kernel_session.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"
#include "measure/phase_times.h"

namespace tt {
namespace {

constexpr uint64_t kArgumentSeed = 20240601;

size_t FloatsFor(size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }

// Bytes kept in floats, so that the Context's float transfers carry any element type.
std::vector<float> Padded(const std::vector<unsigned char>& bytes) {
  std::vector<float> floats(FloatsFor(bytes.size()), 0.0f);
  if (!bytes.empty()) std::memcpy(floats.data(), bytes.data(), bytes.size());
  return floats;
}

}  // namespace

UserKernelSession::~UserKernelSession() = default;

void UserKernelSession::Load(const std::string& staged_path, bool with_data) {
  if (loaded_ == staged_path && (loaded_data_ || !with_data)) return;
  loaded_.clear();
  args_.clear();
  std::ifstream in(staged_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the staged kernel spec '" + staged_path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  spec_ = ParseUserKernelSpec(text.str(), "/");
  for (size_t i = 0; i < spec_.arguments.size(); ++i) {
    const UserKernelArg& a = spec_.arguments[i];
    auto arg = std::make_unique<Argument>();
    arg->spec = &a;
    if (a.scalar) {
      arg->scalar = ScalarBytes(a);
    } else if (with_data) {
      arg->initial = Padded(ArgumentBytes(a, a.data, kArgumentSeed + i));
      if (a.answer) arg->answer = Padded(ArgumentBytes(a, *a.answer, kArgumentSeed + 1000 + i));
      arg->buffer = context_.CreateBuffer(arg->initial.size());
      arg->read_back.resize(arg->initial.size());
    } else {
      arg->buffer = context_.CreateBuffer(FloatsFor(a.elements * a.element_bytes));
    }
    args_.push_back(std::move(arg));
  }
  // No answer given: the reference config's outputs are the answer (every array it leaves).
  if (with_data && !spec_.HasAnswer() && !spec_.reference_options.empty()) {
    const ocl::BuildResult build = context_.Build(spec_.source, spec_.reference_options);
    if (!build.ok()) throw std::runtime_error("the reference config does not compile:\n" + build.log.substr(0, 4000));
    ocl::Kernel kernel = build.program->CreateKernel(spec_.kernel_name);
    Bind(kernel);
    ResetArrays();
    context_.Launch(kernel, 3, spec_.reference_global, spec_.reference_local);
    for (auto& arg : args_) {
      if (!arg->buffer) continue;
      context_.Read(*arg->buffer, arg->read_back);
      arg->answer = arg->read_back;
    }
  }
  loaded_ = staged_path;
  loaded_data_ = with_data;
}

void UserKernelSession::Bind(ocl::Kernel& kernel) {
  for (size_t i = 0; i < args_.size(); ++i) {
    const Argument& arg = *args_[i];
    if (arg.buffer) {
      kernel.SetArg(static_cast<unsigned>(i), *arg.buffer);
    } else {
      kernel.SetArgBytes(static_cast<unsigned>(i), arg.scalar.data(), arg.scalar.size());
    }
  }
}

void UserKernelSession::ResetArrays() {
  for (auto& arg : args_)
    if (arg->buffer) context_.Write(*arg->buffer, arg->initial);
}

std::optional<std::string> UserKernelSession::FindMismatch() {
  for (size_t a = 0; a < args_.size(); ++a) {
    Argument& arg = *args_[a];
    if (!arg.answer) continue;
    context_.Read(*arg.buffer, arg.read_back);
    const auto* got = reinterpret_cast<const unsigned char*>(arg.read_back.data());
    const auto* want = reinterpret_cast<const unsigned char*>(arg.answer->data());
    for (size_t i = 0; i < arg.spec->elements; ++i) {
      const double g = ElementAt(arg.spec->type, got, i), w = ElementAt(arg.spec->type, want, i);
      // numpy.allclose's test (rtol 1e-5), NaN never close.
      if (!(std::fabs(g - w) <= spec_.atol + 1e-5 * std::fabs(w))) {
        std::ostringstream text;
        text << "argument " << a << "[" << i << "] = " << g << ", answer " << w << " (atol " << spec_.atol << ")";
        return text.str();
      }
    }
  }
  return std::nullopt;
}

MeasureResult UserKernelSession::Handle(const WorkerRequest& request) {
  Load(request.user_kernel, request.kind != WorkerRequest::Kind::kBuild);
  if (request.kind == WorkerRequest::Kind::kPrepare) return {};
  const auto start = std::chrono::steady_clock::now();
  const ocl::BuildResult build = context_.Build(spec_.source, request.build_options);
  const double compile_s = SecondsSince(start);
  if (!build.ok()) {
    std::string log = build.log.size() > 8192 ? build.log.substr(0, 8192) + "\n..." : build.log;
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kCompileError, log), compile_s);
  }
  try {
    ocl::Kernel kernel = build.program->CreateKernel(spec_.kernel_name);
    Bind(kernel);
    const LaunchGeometry& g = request.geometry;
    if (request.kind == WorkerRequest::Kind::kBuild) {
      // One work-group, so that the driver generates its code here, in parallel with other builders.
      const auto launch_start = std::chrono::steady_clock::now();
      context_.Launch(kernel, g.dims, g.local, g.local);
      MeasureResult built;
      built.compile_s = compile_s;
      built.first_launch_s = SecondsSince(launch_start);
      return built;
    }
    ResetArrays();
    auto phase = std::chrono::steady_clock::now();
    context_.Launch(kernel, g.dims, g.global, g.local);
    const double first_launch_s = SecondsSince(phase);
    phase = std::chrono::steady_clock::now();
    const auto mismatch = FindMismatch();
    const double verify_s = SecondsSince(phase);
    const auto with_times = [&](MeasureResult result, double timed_s) {
      return WithPhaseTimes(std::move(result), {compile_s, first_launch_s, verify_s}, timed_s);
    };
    if (mismatch) return with_times(MeasureResult::Failure(MeasureStatus::kWrongAnswer, *mismatch), 0);
    phase = std::chrono::steady_clock::now();
    std::vector<double> times;
    const int repeats = std::max(1, request.max_repeats);
    // Every one of Kernel Tuner's iterations, even for a config far slower than the best: its
    // time is their mean, which a cut-short config would not have.
    while (static_cast<int>(times.size()) < repeats)
      times.push_back(context_.Launch(kernel, g.dims, g.global, g.local));
    return with_times(MeasureResult::Success(std::move(times), request.flops, compile_s), SecondsSince(phase));
  } catch (const std::exception& e) {
    return WithCompileTime(MeasureResult::Failure(MeasureStatus::kRuntimeError, e.what()), compile_s);
  }
}

}  // namespace tt
