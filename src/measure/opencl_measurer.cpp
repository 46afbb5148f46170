#include "measure/opencl_measurer.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "measure/worker_process.h"
#include "measure/worker_protocol.h"

namespace tt {
namespace {

constexpr double kStartTimeoutS = 60;  // OpenCL platform start-up is slow on some drivers

std::string Seconds(double s) {
  std::ostringstream text;
  text << s;  // shortest form: "3", "0.5"
  return text.str();
}

}  // namespace

OpenClMeasurer::OpenClMeasurer(OpenClMeasurerOptions options) : options_(std::move(options)) { StartWorker(); }

OpenClMeasurer::~OpenClMeasurer() = default;

void OpenClMeasurer::StartWorker() {
  worker_ = std::make_unique<WorkerProcess>(options_.worker_path,
                                            std::vector<std::string>{"--device", options_.device_spec});
  prepared_.clear();
  std::string line;
  const auto status = worker_->ReadLine(kStartTimeoutS, line);
  const auto hello = status == WorkerProcess::ReadStatus::kLine ? DecodeHello(line) : std::nullopt;
  if (!hello) {
    const std::string how = status == WorkerProcess::ReadStatus::kTimeout ? "did not answer" : "failed";
    throw EnvironmentError("worker '" + options_.worker_path + "' " + how + " at start-up (" + DropWorker(0) + ")");
  }
  if (!hello->device) {
    DropWorker(1);
    if (hello->user_error) throw UserError(hello->error);
    throw EnvironmentError(hello->error);
  }
  if (!device_.name.empty() && hello->device->Fingerprint() != device_.Fingerprint())
    throw EnvironmentError("restarted worker opened another device: " + hello->device->Fingerprint());
  device_ = *hello->device;
}

std::string OpenClMeasurer::DropWorker(double grace_s) {
  std::string how = worker_->WaitForExit(grace_s);
  how = (worker_->Crashed() ? "worker crashed (" : "worker exited (") + how + ")";
  if (const std::string& output = worker_->error_output(); !output.empty())
    how += "; its last output:\n" + output.substr(output.size() > 1000 ? output.size() - 1000 : 0);
  worker_.reset();
  prepared_.clear();
  return how;
}

void OpenClMeasurer::Prepare(const MeasureTask& task) {
  const std::string key = std::string(task.kernel->name()) + " " + task.workload.Key();
  if (prepared_ == key) return;
  WorkerRequest request;
  request.kind = WorkerRequest::Kind::kPrepare;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  std::string line;
  if (!worker_->Send(EncodeRequest(request)))
    throw EnvironmentError("preparing " + key + ": " + DropWorker(1));
  const auto status = worker_->ReadLine(options_.prepare_timeout_s, line);
  if (status == WorkerProcess::ReadStatus::kTimeout)
    throw EnvironmentError("preparing inputs and the CPU reference of " + key + " took more than " +
                           Seconds(options_.prepare_timeout_s) + " s (" + DropWorker(0) + ")");
  if (status == WorkerProcess::ReadStatus::kClosed)
    throw EnvironmentError("preparing " + key + ": " + DropWorker(1));
  const auto result = DecodeResult(line);
  if (!result || !result->ok())
    throw EnvironmentError("worker cannot prepare " + key + ": " + (result ? result->error : "malformed reply"));
  prepared_ = key;
}

MeasureResult OpenClMeasurer::MeasureValid(const MeasureTask& task, const Config& config) {
  if (!worker_) StartWorker();
  Prepare(task);
  WorkerRequest request;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  request.build_options = task.kernel->BuildOptions(task.workload, *task.space, config);
  request.geometry = task.kernel->Geometry(task.workload, *task.space, config);
  request.flops = task.kernel->Flops(task.workload);
  request.min_time_s = options_.min_time_s;
  request.max_repeats = options_.max_repeats;
  std::string line;
  if (!worker_->Send(EncodeRequest(request))) return MeasureResult::Failure(MeasureStatus::kRuntimeError, DropWorker(1));
  switch (worker_->ReadLine(options_.timeout_s, line)) {
    case WorkerProcess::ReadStatus::kTimeout:
      DropWorker(0);
      return MeasureResult::Failure(MeasureStatus::kTimeout, "no result within " + Seconds(options_.timeout_s) +
                                                                 " s (compile and run); the worker was killed");
    case WorkerProcess::ReadStatus::kClosed:
      return MeasureResult::Failure(MeasureStatus::kRuntimeError, DropWorker(1));
    case WorkerProcess::ReadStatus::kLine:
      break;
  }
  if (auto result = DecodeResult(line)) return *result;
  DropWorker(0);
  return MeasureResult::Failure(MeasureStatus::kRuntimeError, "malformed reply from the worker: " + line.substr(0, 200));
}

std::vector<MeasureResult> OpenClMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch) {
  std::vector<MeasureResult> results;
  results.reserve(batch.size());
  for (const Config& config : batch) {
    if (auto why = task.space->WhyInvalid(config))
      results.push_back(MeasureResult::Failure(MeasureStatus::kInvalidConfig, std::move(*why)));
    else
      results.push_back(MeasureValid(task, config));
  }
  return results;
}

std::string DefaultWorkerPath() {
  if (const char* path = std::getenv("TENSORTUNE_WORKER"); path && *path) return path;
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "tensortune-worker";
  return (self.parent_path() / "tensortune-worker").string();
}

}  // namespace tt
