#include "measure/opencl_measurer.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/errors.h"
#include "core/statistics.h"
#include "measure/worker_process.h"
#include "measure/worker_protocol.h"

namespace tt {
namespace {

constexpr double kStartTimeoutS = 60;  // OpenCL platform start-up is slow on some drivers
// A config whose first timed launches are this many times slower than the task's best is timed
// no further: the search needs to know it is slow, not how slow to the last percent.
constexpr double kGiveUpFactor = 3;
// Timing a config built ahead: round trips, the cached build and reading back take this much
// at most; the launches are allowed kHopelessFactor times the best each.
constexpr double kTimingFloorS = 2;
constexpr double kLaunchesOfASlowConfig = 3;  // warm-up, check, one timed repeat
// A build (and first work-group) is allowed this many times the task's median build so far,
// and never less than the floor: an unroll that takes the compiler minutes costs seconds.
constexpr double kSlowBuildFactor = 4;
constexpr double kBuildFloorS = 5;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string Seconds(double s) {
  std::ostringstream text;
  text << s;  // shortest form: "3", "0.5"
  return text.str();
}

// Starts a worker (the timing worker, or a builder) and reads its hello: the device it opened.
// Throws UserError for a device spec that matches nothing, EnvironmentError when the worker or
// OpenCL is unusable.
enum class WorkerRole { kTiming, kBuilder };
std::pair<std::unique_ptr<WorkerProcess>, DeviceInfo> StartWorkerProcess(const OpenClMeasurerOptions& o,
                                                                         WorkerRole role) {
  std::vector<std::string> args{"--device", o.device_spec};
  if (role == WorkerRole::kBuilder) args.push_back("--builder");
  auto worker = std::make_unique<WorkerProcess>(o.worker_path, args);
  std::string line;
  const auto status = worker->ReadLine(kStartTimeoutS, line);
  const auto hello = status == WorkerProcess::ReadStatus::kLine ? DecodeHello(line) : std::nullopt;
  if (!hello) {
    const std::string how = status == WorkerProcess::ReadStatus::kTimeout ? "did not answer" : "failed";
    throw EnvironmentError("worker '" + o.worker_path + "' " + how + " at start-up (" + worker->WaitForExit(0) + ")");
  }
  if (!hello->device) {
    worker->WaitForExit(1);
    if (hello->user_error) throw UserError(hello->error);
    throw EnvironmentError(hello->error);
  }
  return {std::move(worker), *hello->device};
}

// Reaps a worker and says how it ended; `signal` gets the signal that ended it, or 0.
std::string Reap(WorkerProcess& worker, double grace_s, int& signal) {
  std::string how = worker.WaitForExit(grace_s);
  signal = worker.TermSignal();
  how = (worker.Crashed() ? "worker crashed (" : "worker exited (") + how + ")";
  if (const std::string& output = worker.error_output(); !output.empty())
    how += "; its last output:\n" + output.substr(output.size() > 1000 ? output.size() - 1000 : 0);
  return how;
}

// The config in flight when its worker died. A kernel that faults ends the worker with one of
// these signals; any other came from outside (a kill, the OOM killer), which says nothing about
// the config.
MeasureResult Lost(std::string how, int signal) {
  MeasureResult lost = MeasureResult::Failure(MeasureStatus::kRuntimeError, std::move(how));
  switch (signal) {
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGABRT:
    case SIGTRAP:
    case 0:
      break;
    default:
      lost.transient = true;
  }
  return lost;
}

MeasureResult TimedOut(std::string error, bool transient) {
  auto timeout = MeasureResult::Failure(MeasureStatus::kTimeout, std::move(error));
  timeout.transient = transient;
  return timeout;
}

}  // namespace

int DefaultBuilders() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

double BuildTimeoutS(double timeout_s, std::vector<double> build_seconds) {
  if (build_seconds.empty()) return timeout_s;
  return std::min(timeout_s, std::max(kBuildFloorS, kSlowBuildFactor * Median(std::move(build_seconds))));
}

double TimingTimeoutS(double timeout_s, double best_time_s) {
  if (best_time_s <= 0) return timeout_s;
  return std::min(timeout_s, kTimingFloorS + kLaunchesOfASlowConfig * kHopelessFactor * best_time_s);
}

struct OpenClMeasurer::Builder {
  std::unique_ptr<WorkerProcess> process;  // null once it died, until the next batch restarts it
  int64_t builds = 0;                      // configs it answered, over its restarts
};

OpenClMeasurer::OpenClMeasurer(OpenClMeasurerOptions options) : options_(std::move(options)) { StartWorker(); }

OpenClMeasurer::~OpenClMeasurer() = default;

void OpenClMeasurer::StartWorker() {
  auto [worker, device] = StartWorkerProcess(options_, WorkerRole::kTiming);
  prepared_.clear();
  if (!device_.name.empty() && device.Fingerprint() != device_.Fingerprint())
    throw EnvironmentError("restarted worker opened another device: " + device.Fingerprint());
  worker_ = std::move(worker);
  device_ = std::move(device);
}

std::vector<int64_t> OpenClMeasurer::BuildsPerBuilder() const {
  std::vector<int64_t> builds;
  for (const auto& b : builders_) builds.push_back(b->builds);
  return builds;
}

std::string OpenClMeasurer::DropWorker(double grace_s) {
  const std::string how = Reap(*worker_, grace_s, last_exit_signal_);
  worker_.reset();
  prepared_.clear();
  return how;
}

// The worker keeps several workloads prepared, so switching back to one costs a round trip.
bool OpenClMeasurer::Prepare(const MeasureTask& task, const std::atomic<bool>* stop) {
  const std::string key =
      std::string(task.kernel->name()) + " " + task.workload.Key() + std::string(task.kernel->worker_spec());
  if (prepared_ == key) return true;
  WorkerRequest request;
  request.kind = WorkerRequest::Kind::kPrepare;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  request.user_kernel = task.kernel->worker_spec();
  std::string line;
  if (!worker_->Send(EncodeRequest(request))) throw EnvironmentError("preparing " + key + ": " + DropWorker(1));
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
  std::string how = DropWorker(1);  // sets last_exit_signal_
  return Lost(std::move(how), last_exit_signal_);
}

WorkerRequest OpenClMeasurer::Request(const MeasureTask& task, const Config& config, WorkerRequest::Kind kind) const {
  WorkerRequest request;
  request.kind = kind;
  request.template_name = task.kernel->name();
  request.workload_key = task.workload.Key();
  request.build_options = task.kernel->BuildOptions(task.workload, *task.space, config);
  request.geometry = task.kernel->Geometry(task.workload, *task.space, config);
  request.pre_pass = task.kernel->PrePassOf(task.workload, *task.space, config);
  request.flops = task.kernel->Flops(task.workload);
  request.min_time_s = options_.min_time_s;
  request.max_repeats = options_.max_repeats;
  request.give_up_slower_than_s = task.best_time_s > 0 ? kGiveUpFactor * task.best_time_s : 0;
  request.user_kernel = task.kernel->worker_spec();
  return request;
}

std::vector<std::optional<MeasureResult>> OpenClMeasurer::BuildAhead(const MeasureTask& task,
                                                                     const std::vector<Config>& batch,
                                                                     const std::atomic<bool>* stop) {
  std::vector<std::optional<MeasureResult>> built(batch.size());
  std::vector<std::optional<WorkerRequest>> requests(batch.size());
  std::vector<size_t> pending;  // valid configs without a build result yet
  for (size_t i = 0; i < batch.size(); ++i)
    if (task.space->IsValid(batch[i]))
      requests[i] = Request(task, batch[i], WorkerRequest::Kind::kBuild), pending.push_back(i);
  const std::string task_key = std::string(task.kernel->name()) + " " + task.workload.Key();
  std::vector<double>& build_seconds = build_seconds_[task_key];
  const double timeout_s = BuildTimeoutS(options_.timeout_s, build_seconds);
  const auto build_on = [&](Builder& builder, std::atomic<size_t>& next) {
    for (size_t k; builder.process && (k = next++) < pending.size();) {
      const size_t i = pending[k];
      if (stop && stop->load()) return;
      WorkerProcess& process = *builder.process;
      int signal = 0;
      std::string line;
      if (!process.Send(EncodeRequest(*requests[i]))) {
        built[i] = Lost(Reap(process, 1, signal), signal);
        builder.process.reset();
        continue;
      }
      if (options_.on_sent) options_.on_sent(i, true);
      switch (process.ReadLine(timeout_s, line, stop)) {
        case WorkerProcess::ReadStatus::kStopped:
          Reap(process, 0, signal);
          builder.process.reset();
          return;
        case WorkerProcess::ReadStatus::kTimeout:
          Reap(process, 0, signal);
          builder.process.reset();
          built[i] = TimedOut(
              "no result within " + Seconds(timeout_s) + " s (build and first work-group); the builder was killed",
              true);  // a loaded machine may explain it: one later retry
          continue;
        case WorkerProcess::ReadStatus::kClosed:
          built[i] = Lost(Reap(process, 1, signal), signal);
          builder.process.reset();
          continue;
        case WorkerProcess::ReadStatus::kLine:
          break;
      }
      if (auto result = DecodeResult(line)) {
        built[i] = std::move(*result);
        ++builder.builds;
      } else {  // a garbled reply: that builder is replaced, the config built in the next round
        Reap(process, 0, signal);
        builder.process.reset();
      }
    }
  };
  // In rounds: the builders are started here, never on the threads below (a worker dies with the
  // thread that started it), so one that crashed or hung is replaced for the next round.
  for (size_t round = 0; !pending.empty() && round <= batch.size(); ++round) {
    if (stop && stop->load()) break;
    const size_t wanted = std::min(pending.size(), static_cast<size_t>(options_.builders));
    while (builders_.size() < wanted) builders_.push_back(std::make_unique<Builder>());
    try {
      for (size_t b = 0; b < wanted; ++b)
        if (!builders_[b]->process) builders_[b]->process = StartWorkerProcess(options_, WorkerRole::kBuilder).first;
    } catch (const std::exception&) {
      break;  // no builders here: the timing worker builds what is left, as without them
    }
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (size_t b = 0; b < wanted; ++b) threads.emplace_back(build_on, std::ref(*builders_[b]), std::ref(next));
    for (auto& t : threads) t.join();
    std::vector<size_t> left;
    for (size_t i : pending) {
      if (!built[i])
        left.push_back(i);
      else if (built[i]->ok())
        build_seconds.push_back(built[i]->compile_s + built[i]->first_launch_s);
    }
    pending = std::move(left);
  }
  return built;
}

std::optional<MeasureResult> OpenClMeasurer::MeasureValid(const MeasureTask& task, const Config& config, size_t index,
                                                          double timeout_s, const std::atomic<bool>* stop) {
  if (!worker_) StartWorker();
  if (!Prepare(task, stop)) return std::nullopt;
  std::string line;
  if (!worker_->Send(EncodeRequest(Request(task, config, WorkerRequest::Kind::kMeasure)))) return WorkerLost();
  if (options_.on_sent) options_.on_sent(index, false);
  switch (worker_->ReadLine(timeout_s, line, stop)) {
    case WorkerProcess::ReadStatus::kStopped:
      DropWorker(0);
      return std::nullopt;
    case WorkerProcess::ReadStatus::kTimeout: {
      DropWorker(0);
      if (timeout_s < options_.timeout_s)  // cut for being hopeless, not for hanging: final
        return TimedOut("cut after " + Seconds(timeout_s) + " s: more than " + Seconds(kHopelessFactor) +
                            " times slower than the task's best (" + Seconds(task.best_time_s * 1e3) + " ms)",
                        false);
      // A loaded machine may explain it: one later retry (see the history's seeding).
      return TimedOut("no result within " + Seconds(timeout_s) + " s (compile and run); the worker was killed", true);
    }
    case WorkerProcess::ReadStatus::kClosed:
      return WorkerLost();
    case WorkerProcess::ReadStatus::kLine:
      break;
  }
  if (auto result = DecodeResult(line)) return *result;
  DropWorker(0);
  auto garbled =
      MeasureResult::Failure(MeasureStatus::kRuntimeError, "malformed reply from the worker: " + line.substr(0, 200));
  garbled.transient = true;
  return garbled;
}

// On a CPU device nothing builds while a config is timed: the batch is built on the builders
// first, then timed here one config at a time.
MeasuredBatch OpenClMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                      const std::atomic<bool>* stop) {
  MeasuredBatch measured;
  measured.results.reserve(batch.size());
  const auto build_start = Clock::now();
  const auto built =
      options_.builders > 0 ? BuildAhead(task, batch, stop) : std::vector<std::optional<MeasureResult>>(batch.size());
  const auto built_count = std::count_if(built.begin(), built.end(), [](const auto& b) { return b.has_value(); });
  const double build_share = built_count > 0 ? SecondsSince(build_start) / static_cast<double>(built_count) : 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const Config& config = batch[i];
    if (stop && stop->load()) {
      measured.end = MeasuredBatch::End::kStopped;
      break;
    }
    if (auto why = task.space->WhyInvalid(config)) {
      measured.results.push_back(MeasureResult::Failure(MeasureStatus::kInvalidConfig, std::move(*why)));
      continue;
    }
    if (built[i] && !built[i]->ok()) {  // its build failed, crashed or hung: that is its trial
      measured.results.push_back(*built[i]);
      measured.results.back().wall_s = build_share;
      continue;
    }
    try {
      const auto start = Clock::now();
      const double timeout_s = built[i] ? TimingTimeoutS(options_.timeout_s, task.best_time_s) : options_.timeout_s;
      auto result = MeasureValid(task, config, i, timeout_s, stop);
      if (!result) {
        measured.end = MeasuredBatch::End::kStopped;
        break;
      }
      if (built[i]) {  // the builder's seconds belong to this config too
        result->compile_s += built[i]->compile_s;
        result->first_launch_s += built[i]->first_launch_s;
      }
      result->wall_s = (built[i] ? build_share : 0) + SecondsSince(start);
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
