#include "measure/opencl_measurer.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "measure/worker_process.h"
#include "measure/worker_protocol.h"

namespace tt {
namespace {

constexpr double kStartTimeoutS = 60;  // OpenCL platform start-up is slow on some drivers
// A config whose first timed launches are this many times slower than the task's best is timed
// no further: the search needs to know it is slow, not how slow to the last percent.
constexpr double kGiveUpFactor = 3;

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
  last_exit_signal_ = worker_->TermSignal();
  how = (worker_->Crashed() ? "worker crashed (" : "worker exited (") + how + ")";
  if (const std::string& output = worker_->error_output(); !output.empty())
    how += "; its last output:\n" + output.substr(output.size() > 1000 ? output.size() - 1000 : 0);
  worker_.reset();
  prepared_.clear();
  return how;
}

// The worker keeps several workloads prepared, so switching back to one costs a round trip.
bool OpenClMeasurer::Prepare(const MeasureTask& task, const std::atomic<bool>* stop) {
  const std::string key = std::string(task.kernel->name()) + " " + task.workload.Key();
  if (prepared_ == key) return true;
  WorkerRequest request;
  request.kind = WorkerRequest::Kind::kPrepare;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  std::string line;
  if (!worker_->Send(EncodeRequest(request)))
    throw EnvironmentError("preparing " + key + ": " + DropWorker(1));
  switch (worker_->ReadLine(options_.prepare_timeout_s, line, stop)) {
    case WorkerProcess::ReadStatus::kStopped:
      DropWorker(0);
      return false;
    case WorkerProcess::ReadStatus::kTimeout:
      throw EnvironmentError("preparing inputs and the CPU reference of " + key + " took more than " +
                             Seconds(options_.prepare_timeout_s) + " s (" + DropWorker(0) + ")");
    case WorkerProcess::ReadStatus::kClosed:
      throw EnvironmentError("preparing " + key + ": " + DropWorker(1));
    case WorkerProcess::ReadStatus::kLine:
      break;
  }
  const auto result = DecodeResult(line);
  if (!result || !result->ok())
    throw EnvironmentError("worker cannot prepare " + key + ": " + (result ? result->error : "malformed reply"));
  prepared_ = key;
  return true;
}

MeasureResult OpenClMeasurer::WorkerLost() {
  MeasureResult lost = MeasureResult::Failure(MeasureStatus::kRuntimeError, DropWorker(1));
  // A kernel that faults ends the worker with one of these; any other signal came from outside
  // (a kill, the OOM killer), which says nothing about the config.
  switch (last_exit_signal_) {
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGABRT: case SIGTRAP: case 0:
      break;
    default:
      lost.transient = true;
  }
  return lost;
}

std::optional<MeasureResult> OpenClMeasurer::MeasureValid(const MeasureTask& task, const Config& config,
                                                          const std::atomic<bool>* stop) {
  if (!worker_) StartWorker();
  if (!Prepare(task, stop)) return std::nullopt;
  WorkerRequest request;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  request.build_options = task.kernel->BuildOptions(task.workload, *task.space, config);
  request.geometry = task.kernel->Geometry(task.workload, *task.space, config);
  request.pre_pass = task.kernel->PrePassOf(task.workload, *task.space, config);
  request.flops = task.kernel->Flops(task.workload);
  request.min_time_s = options_.min_time_s;
  request.max_repeats = options_.max_repeats;
  request.give_up_slower_than_s = task.best_time_s > 0 ? kGiveUpFactor * task.best_time_s : 0;
  std::string line;
  if (!worker_->Send(EncodeRequest(request))) return WorkerLost();
  switch (worker_->ReadLine(options_.timeout_s, line, stop)) {
    case WorkerProcess::ReadStatus::kStopped:
      DropWorker(0);
      return std::nullopt;
    case WorkerProcess::ReadStatus::kTimeout: {
      DropWorker(0);
      auto timeout = MeasureResult::Failure(MeasureStatus::kTimeout, "no result within " + Seconds(options_.timeout_s) +
                                                                        " s (compile and run); the worker was killed");
      timeout.transient = true;  // a loaded machine may explain it: one later retry (see the history's seeding)
      return timeout;
    }
    case WorkerProcess::ReadStatus::kClosed:
      return WorkerLost();
    case WorkerProcess::ReadStatus::kLine:
      break;
  }
  if (auto result = DecodeResult(line)) return *result;
  DropWorker(0);
  auto garbled = MeasureResult::Failure(MeasureStatus::kRuntimeError, "malformed reply from the worker: " + line.substr(0, 200));
  garbled.transient = true;
  return garbled;
}

MeasuredBatch OpenClMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                      const std::atomic<bool>* stop) {
  MeasuredBatch measured;
  measured.results.reserve(batch.size());
  for (const Config& config : batch) {
    if (stop && stop->load()) {
      measured.end = MeasuredBatch::End::kStopped;
      break;
    }
    if (auto why = task.space->WhyInvalid(config)) {
      measured.results.push_back(MeasureResult::Failure(MeasureStatus::kInvalidConfig, std::move(*why)));
      continue;
    }
    try {
      auto result = MeasureValid(task, config, stop);
      if (!result) {
        measured.end = MeasuredBatch::End::kStopped;
        break;
      }
      measured.results.push_back(std::move(*result));
    } catch (const EnvironmentError& e) {
      if (worker_) DropWorker(0);
      measured.end = MeasuredBatch::End::kBrokenEnvironment;
      measured.error = e.what();
      break;
    }
  }
  return measured;
}

std::string DefaultWorkerPath() {
  if (const char* path = std::getenv("TENSORTUNE_WORKER"); path && *path) return path;
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "tensortune-worker";
  return (self.parent_path() / "tensortune-worker").string();
}

}  // namespace tt
