#include "distributed/rank_measurer.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <ostream>
#include <thread>

#include "core/errors.h"
#include "measure/opencl_measurer.h"

namespace tt {
namespace {

// Opening a device (the OpenCL worker's start) may be slow on a loaded machine.
constexpr double kHelloTimeoutS = 300;
constexpr double kReportEveryS = 5;
constexpr auto kIdlePoll = std::chrono::milliseconds(1);
constexpr int kDepth = 2;  // work messages a rank may hold

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

bool RankRoster::AnyLost() const {
  for (const Rank& r : ranks)
    if (r.lost) return true;
  return false;
}

bool StopWorkerRanks(RankChannel& channel, const RankRoster& roster) {
  const RankStop stop{!roster.AnyLost()};
  for (int r = 1; r < channel.size(); ++r)
    if (!roster.ranks[static_cast<size_t>(r)].lost) channel.Send(r, RankTag::kStop, EncodeStop(stop));
  return stop.finalize;
}

struct RankMeasurer::Flight {
  const MeasureTask& task;
  const std::vector<Config>& batch;
  std::vector<std::optional<MeasureResult>> results;
  std::deque<size_t> waiting;           // batch positions not sent yet, in order
  std::map<int64_t, size_t> positions;  // id of each config in flight -> its batch position
  // Rank -> the ids of each work message it holds, oldest first (a rank answers in order).
  std::map<int, std::deque<std::vector<int64_t>>> held;
  size_t done = 0;
  bool abandoning = false;  // a stop was asked for: nothing more is sent

  // How many work messages `rank` holds.
  int HeldBy(int rank) const {
    const auto it = held.find(rank);
    return it == held.end() ? 0 : static_cast<int>(it->second.size());
  }

  void Requeue(const std::vector<int64_t>& ids) {
    std::vector<size_t> back;
    for (const int64_t id : ids)
      if (const auto it = positions.find(id); it != positions.end()) {
        back.push_back(it->second);
        positions.erase(it);
      }
    if (abandoning) return;
    // In front, in batch order: the batch's results are recorded as a prefix.
    std::sort(back.rbegin(), back.rend());
    for (const size_t p : back) waiting.push_front(p);
  }
};

RankMeasurer::RankMeasurer(RankChannel& channel, RankRoster& roster, const OpenClMeasurerOptions& options,
                           std::ostream& log)
    : channel_(channel), roster_(roster), log_(log), last_heard_(static_cast<size_t>(channel.size())) {
  const RankSetup setup{options.timeout_s, options.builders, options.min_time_s, options.max_repeats};
  for (int r = 1; r < channel_.size(); ++r)
    if (!roster_.ranks[static_cast<size_t>(r)].lost) channel_.Send(r, RankTag::kSetup, EncodeSetup(setup));
  std::map<int, RankHello> hellos;
  const auto asked = Clock::now();
  int expected = 0;
  for (int r = 1; r < channel_.size(); ++r) expected += !roster_.ranks[static_cast<size_t>(r)].lost;
  while (static_cast<int>(hellos.size()) < expected && SecondsSince(asked) < kHelloTimeoutS) {
    const auto message = channel_.Poll();
    if (!message) {
      std::this_thread::sleep_for(kIdlePoll);
      continue;
    }
    if (message->tag != RankTag::kHello) continue;
    auto hello = DecodeRankHello(message->body);
    if (!hello) throw EnvironmentError(fmt::format("rank {} sent a malformed hello", message->source));
    hellos[message->source] = std::move(*hello);
  }
  const RankHello* first = nullptr;
  int first_rank = 0;
  for (int r = 1; r < channel_.size(); ++r) {
    auto& rank = roster_.ranks[static_cast<size_t>(r)];
    if (rank.lost) continue;
    const auto it = hellos.find(r);
    if (it == hellos.end())
      throw EnvironmentError(fmt::format("rank {} did not report its device within {:.0f} s", r, kHelloTimeoutS));
    const RankHello& h = it->second;
    rank.host = h.host;
    rank.device_spec = h.device_spec;
    if (!h.hello.device) {
      const std::string what = fmt::format("rank {} on {}, --device {}: {}", r, h.host, h.device_spec, h.hello.error);
      if (h.hello.user_error) throw UserError(what);
      throw EnvironmentError(what);
    }
    if (!first) {
      first = &h;
      first_rank = r;
    } else if (h.hello.device->Fingerprint() != first->hello.device->Fingerprint()) {
      throw UserError(fmt::format(
          "rank {} on {} measures on '{}' but rank {} on {} on '{}': one run tunes one kind of device (same "
          "platform, name and driver); start one run per kind",
          r, h.host, h.hello.device->Fingerprint(), first_rank, first->host, first->hello.device->Fingerprint()));
    }
    last_heard_[static_cast<size_t>(r)] = Clock::now();
    ++workers_;
  }
  if (!first) throw EnvironmentError("no worker rank is left to measure");
  device_ = *first->hello.device;
  log_ << fmt::format("tensortune-mpi: {} worker ranks measure on {}\n", workers_, device_.name) << std::flush;
  started_ = last_report_ = Clock::now();
}

RankMeasurer::~RankMeasurer() { ReportProgress(true); }

std::string RankMeasurer::MeasuredBy(int rank) const {
  const auto& r = roster_.ranks[static_cast<size_t>(rank)];
  return fmt::format("rank {} on {}, device {}", rank, r.host, r.device_spec);
}

void RankMeasurer::LoseRank(int rank, const std::string& why, Flight& flight) {
  auto& r = roster_.ranks[static_cast<size_t>(rank)];
  r.lost = true;
  size_t configs = 0;
  for (const auto& ids : flight.held[rank]) {
    configs += ids.size();
    flight.Requeue(ids);
  }
  flight.held.erase(rank);
  // Told now to stop without MPI_Finalize: a rank that was only stalled (SIGSTOP, a swapping
  // host) reads it when it comes back, after the work it still had queued, and leaves, instead
  // of waiting for rank 0 forever and keeping mpirun running.
  channel_.Send(rank, RankTag::kStop, EncodeStop(RankStop{false}));
  log_ << fmt::format(
              "tensortune-mpi: rank {} on {} is lost ({}); {} config(s) it had in flight go to the other "
              "ranks\n",
              rank, r.host, why, configs)
       << std::flush;
}

void RankMeasurer::Handle(const RankMessage& message, Flight& flight) {
  const int rank = message.source;
  if (rank <= 0 || rank >= channel_.size() || roster_.ranks[static_cast<size_t>(rank)].lost) return;
  last_heard_[static_cast<size_t>(rank)] = Clock::now();
  if (message.tag != RankTag::kResults) return;
  const auto results = DecodeResults(message.body);
  if (!results) return LoseRank(rank, "it sent malformed results", flight);
  for (size_t i = 0; i < results->ids.size(); ++i) {
    const auto it = flight.positions.find(results->ids[i]);
    if (it == flight.positions.end()) continue;  // from a batch that was abandoned
    MeasureResult result = results->results[i];
    result.measured_by = MeasuredBy(rank);
    flight.results[it->second] = std::move(result);
    flight.positions.erase(it);
    ++flight.done;
    ++measured_;
    ++roster_.ranks[static_cast<size_t>(rank)].measured;
  }
  // What the rank was given in that message but did not measure (an abandon, a broken
  // measurer) goes back.
  auto& held = flight.held[rank];
  if (!held.empty()) {
    flight.Requeue(held.front());
    held.pop_front();
  }
  if (held.empty()) flight.held.erase(rank);
  if (!results->broken.empty()) LoseRank(rank, "its measurer broke: " + results->broken, flight);
}

MeasuredBatch RankMeasurer::Measure(const MeasureTask& task, const std::vector<Config>& batch,
                                    const std::atomic<bool>* stop) {
  Flight flight{task, batch, std::vector<std::optional<MeasureResult>>(batch.size()), {}, {}, {}};
  for (size_t i = 0; i < batch.size(); ++i) flight.waiting.push_back(i);
  MeasuredBatch measured;
  while (flight.done < batch.size()) {
    bool busy = false;
    while (const auto message = channel_.Poll()) {
      Handle(*message, flight);
      busy = true;
    }
    int live = 0;
    for (int r = 1; r < channel_.size(); ++r) {
      if (roster_.ranks[static_cast<size_t>(r)].lost) continue;
      if (SecondsSince(last_heard_[static_cast<size_t>(r)]) > kLostAfterS) {
        LoseRank(r, fmt::format("nothing heard for {:.0f} s", kLostAfterS), flight);
        continue;
      }
      ++live;
    }
    if (live == 0) {
      measured.end = MeasuredBatch::End::kBrokenEnvironment;
      measured.error = "every worker rank is lost";
      break;
    }
    if (stop && stop->load() && !flight.abandoning) {
      flight.abandoning = true;
      flight.waiting.clear();
      for (const auto& [rank, ids] : flight.held) channel_.Send(rank, RankTag::kAbandon, "");
    }
    if (flight.abandoning) {
      if (flight.held.empty()) {
        measured.end = MeasuredBatch::End::kStopped;
        break;
      }
    } else {
      // One config per message, to every free rank first; while the configs left outnumber the
      // ranks, a second to each, so that a rank never waits for the round trip to rank 0.
      for (int depth = 1; depth <= kDepth; ++depth)
        for (int r = 1; r < channel_.size() && !flight.waiting.empty(); ++r) {
          if (roster_.ranks[static_cast<size_t>(r)].lost || flight.HeldBy(r) >= depth) continue;
          if (depth > 1 && static_cast<int>(flight.waiting.size()) < live) break;
          const size_t position = flight.waiting.front();
          flight.waiting.pop_front();
          const int64_t id = next_id_++;
          flight.positions[id] = position;
          flight.held[r].push_back({id});
          const RankWork work{std::string(task.kernel->name()),
                              task.workload.Key(),
                              task.best_time_s,
                              {id},
                              {task.space->ToJson(batch[position])}};
          if (!channel_.Send(r, RankTag::kWork, EncodeWork(work))) LoseRank(r, "MPI refused a send to it", flight);
          busy = true;
        }
    }
    ReportProgress(false);
    if (!busy) std::this_thread::sleep_for(kIdlePoll);
  }
  for (auto& result : flight.results) {
    if (!result) break;
    measured.results.push_back(std::move(*result));
  }
  return measured;
}

void RankMeasurer::ReportProgress(bool final) {
  const double since_report = SecondsSince(last_report_);
  if (!final && since_report < kReportEveryS) return;
  const double elapsed = std::max(SecondsSince(started_), 1e-9);
  std::string line =
      final
          ? fmt::format("tensortune-mpi: {} trials in {:.1f} s, {:.2f}/s", measured_, elapsed, measured_ / elapsed)
          : fmt::format("tensortune-mpi: {} trials, {:.2f}/s (last {:.0f} s: {:.2f}/s)", measured_, measured_ / elapsed,
                        since_report, (measured_ - measured_at_last_report_) / std::max(since_report, 1e-9));
  line += "; per rank:";
  for (int r = 1; r < channel_.size(); ++r) {
    const auto& rank = roster_.ranks[static_cast<size_t>(r)];
    line += fmt::format(" {}: {} ({:.2f}/s){}", r, rank.measured, rank.measured / elapsed, rank.lost ? " lost" : "");
  }
  log_ << line << "\n" << std::flush;
  last_report_ = Clock::now();
  measured_at_last_report_ = measured_;
}

}  // namespace tt
