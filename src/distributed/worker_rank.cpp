#include "distributed/worker_rank.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/errors.h"
#include "distributed/local_device.h"
#include "measure/device_measurer.h"
#include "measure/opencl_measurer.h"
#include "ocl/devices.h"

namespace tt {
namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
constexpr auto kHeartbeatEvery = std::chrono::seconds(1);
constexpr auto kIdlePoll = std::chrono::milliseconds(2);

// The tasks this rank has seen, rebuilt from their names on its own device's limits.
class TaskCache {
 public:
  explicit TaskCache(DeviceLimits limits) : limits_(limits) {}

  // Throws UserError for a template or workload this build does not know.
  const MeasureTask& Get(const RankWork& work) {
    const std::string key = work.template_name + " " + work.workload_key;
    auto it = tasks_.find(key);
    if (it == tasks_.end()) {
      const KernelTemplate* kernel = FindTemplate(work.template_name);
      if (!kernel) throw UserError("unknown kernel template " + work.template_name);
      auto entry = std::make_unique<Entry>();
      entry->workload = Workload::FromKey(work.workload_key);
      entry->space = kernel->Space(entry->workload, limits_);
      entry->task = {kernel, entry->workload, &entry->space, 0};
      it = tasks_.emplace(key, std::move(entry)).first;
    }
    it->second->task.best_time_s = work.best_time_s;
    return it->second->task;
  }

 private:
  struct Entry {
    Workload workload;
    ConfigSpace space;
    MeasureTask task;
  };
  DeviceLimits limits_;
  std::map<std::string, std::unique_ptr<Entry>> tasks_;
};

// Measures one message's configs; a config that is not one of this rank's space fails alone.
RankResults MeasureWork(DeviceMeasurer& measurer, TaskCache& tasks, const RankWork& work,
                        const std::atomic<bool>& abandon) {
  RankResults out;
  const MeasureTask* task = nullptr;
  std::string why_not;
  try {
    task = &tasks.Get(work);
  } catch (const std::exception& e) {
    why_not = std::string("this rank cannot rebuild the task: ") + e.what();
  }
  std::vector<Config> configs;
  std::vector<size_t> positions;  // of the decoded configs in the work
  std::map<size_t, MeasureResult> undecoded;
  for (size_t i = 0; i < work.configs.size(); ++i) {
    std::optional<Config> config = task ? task->space->FromJson(work.configs[i]) : std::nullopt;
    if (config) {
      configs.push_back(std::move(*config));
      positions.push_back(i);
    } else {
      undecoded.emplace(i, MeasureResult::Failure(MeasureStatus::kRuntimeError,
                                                  why_not.empty() ? "not a config of this rank's space" : why_not));
    }
  }
  MeasuredBatch measured;
  if (!configs.empty()) measured = measurer.Measure(*task, configs, &abandon);
  // Results in work order, up to the first config left unmeasured.
  size_t next_measured = 0;
  for (size_t i = 0; i < work.configs.size(); ++i) {
    if (auto it = undecoded.find(i); it != undecoded.end()) {
      out.results.push_back(std::move(it->second));
    } else if (next_measured < measured.results.size()) {
      out.results.push_back(std::move(measured.results[next_measured++]));
    } else {
      break;
    }
    out.ids.push_back(work.ids[i]);
  }
  if (measured.end == MeasuredBatch::End::kBrokenEnvironment) out.broken = measured.error;
  return out;
}

// Runs every measurement of this rank on one thread that lives as long as the rank: the
// measurer's worker processes die with the thread that started them (PR_SET_PDEATHSIG).
class MeasuringThread {
 public:
  MeasuringThread() : thread_([this] { Loop(); }) {}
  ~MeasuringThread() {
    {
      std::lock_guard lock(mutex_);
      ending_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  std::future<RankResults> Run(std::function<RankResults()> job) {
    std::packaged_task<RankResults()> task(std::move(job));
    auto result = task.get_future();
    {
      std::lock_guard lock(mutex_);
      job_ = std::move(task);
    }
    wake_.notify_one();
    return result;
  }

 private:
  void Loop() {
    while (true) {
      std::packaged_task<RankResults()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return ending_ || job_.valid(); });
        if (!job_.valid()) return;
        job = std::move(job_);
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::packaged_task<RankResults()> job_;
  bool ending_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

// The measurer this rank's setup asks for, or why it has none (sent as the hello).
std::unique_ptr<DeviceMeasurer> OpenMeasurer(const RankSetup& setup, std::string& device_spec, int local_index,
                                             WorkerHello& hello) {
  try {
    if (NamesLocalDevice(device_spec)) device_spec = ResolveLocalDevice(device_spec, local_index, ListDevices());
    auto measurer = MakeLocalMeasurer({.worker_path = DefaultWorkerPath(),
                                       .device_spec = device_spec,
                                       .timeout_s = setup.timeout_s,
                                       .builders = setup.builders,
                                       .min_time_s = setup.min_time_s,
                                       .max_repeats = setup.max_repeats});
    hello = WorkerHello::Ready(measurer->device());
    return measurer;
  } catch (const UserError& e) {
    hello = WorkerHello::Failed(e.what(), true);
  } catch (const std::exception& e) {
    hello = WorkerHello::Failed(e.what(), false);
  }
  return nullptr;
}

}  // namespace

WorkerRankEnd ServeAsWorkerRank(RankChannel& channel, const std::string& device_spec, int local_index,
                                const std::string& host) {
  std::string device = device_spec;  // once opened: the flat index a "local" spec resolved to
  std::unique_ptr<DeviceMeasurer> measurer;
  std::unique_ptr<TaskCache> tasks;
  std::deque<RankWork> queue;
  std::future<RankResults> running;
  std::atomic<bool> abandon{false};
  MeasuringThread measuring;  // destroyed first: ends before what its jobs use
  auto last_heartbeat = Clock::now(), last_heard = Clock::now();
  while (true) {
    bool idle = true;
    // Taken before the poll: a rank that was itself stopped finds rank 0's pulses waiting.
    const auto polled_at = Clock::now();
    auto message = channel.Poll(0);
    if (message) last_heard = Clock::now();
    if (!message && Seconds(polled_at - last_heard) > kRankZeroLostAfterS) {
      abandon = true;
      if (running.valid()) running.wait();  // the measurement in hand stops at its next step
      std::cerr << fmt::format(
                       "tensortune-mpi: error: rank {} on {}: rank 0, which tunes and records the run, is lost "
                       "(nothing heard from it for {:.0f} s); this rank leaves\n",
                       channel.rank(), host, kRankZeroLostAfterS)
                << std::flush;
      return {3, false};
    }
    if (message) {
      idle = false;
      switch (message->tag) {
        case RankTag::kSetup: {
          const auto setup = DecodeSetup(message->body);
          WorkerHello hello = WorkerHello::Failed("malformed setup message", false);
          if (setup) measurer = OpenMeasurer(*setup, device, local_index, hello);
          if (measurer) tasks = std::make_unique<TaskCache>(measurer->limits());
          channel.Send(0, RankTag::kHello, EncodeRankHello({hello, host, device}));
          break;
        }
        case RankTag::kWork:
          if (auto work = DecodeWork(message->body)) queue.push_back(std::move(*work));
          break;
        case RankTag::kAbandon:
          // Rank 0 expects an answer to every work message, in order: what the one in hand
          // finished, then none measured for those not begun.
          abandon = true;
          if (running.valid()) channel.Send(0, RankTag::kResults, EncodeResults(running.get()));
          for (size_t i = 0; i < queue.size(); ++i) channel.Send(0, RankTag::kResults, EncodeResults({}));
          queue.clear();
          break;
        case RankTag::kStop: {
          abandon = true;
          if (running.valid()) running.wait();
          const auto stop = DecodeStop(message->body);
          return {0, stop ? stop->finalize : true};
        }
        default:
          break;
      }
    }
    if (running.valid() && running.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      channel.Send(0, RankTag::kResults, EncodeResults(running.get()));
      idle = false;
    }
    if (!running.valid() && !queue.empty() && measurer) {
      abandon = false;
      running =
          measuring.Run([&, work = std::move(queue.front())] { return MeasureWork(*measurer, *tasks, work, abandon); });
      queue.pop_front();
    }
    if (measurer && Clock::now() - last_heartbeat >= kHeartbeatEvery) {
      channel.Send(0, RankTag::kHeartbeat, "");
      last_heartbeat = Clock::now();
    }
    if (idle) std::this_thread::sleep_for(kIdlePoll);
  }
}

}  // namespace tt
