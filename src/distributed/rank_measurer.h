#pragma once
// Rank 0 of tensortune-mpi: a measurer that hands each config of a batch to whichever worker
// rank is free and collects the results as they come. A rank that sends nothing for
// kLostAfterS (it sends every second) is lost: its configs in flight go to the others, and the
// run goes on while one rank is left.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "distributed/rank_channel.h"
#include "measure/device_measurer.h"

namespace tt {

struct OpenClMeasurerOptions;

inline constexpr double kLostAfterS = 10;

// The worker ranks of the run and what became of them; lives as long as rank 0's process,
// beyond any measurer, so that the ranks are stopped however the command ended.
struct RankRoster {
  struct Rank {
    std::string host, device_spec;   // from its hello
    std::atomic<bool> lost = false;  // also read by rank 0's pulse thread (rank_pulse.h)
    int64_t measured = 0;
  };
  explicit RankRoster(int size) : ranks(static_cast<size_t>(size)) {}
  bool AnyLost() const;
  std::vector<Rank> ranks;  // by rank; [0] is rank 0 itself
};

// Tells every worker rank that is not lost that the run is over; returns whether the ranks
// end with MPI_Finalize (not once a rank was lost).
bool StopWorkerRanks(RankChannel& channel, const RankRoster& roster);

class RankMeasurer : public DeviceMeasurer {
 public:
  // Sends every worker rank the measuring options and waits for their devices. Throws
  // UserError when a rank's --device matches nothing or the ranks' devices differ (one run
  // tunes one kind of device), EnvironmentError when a rank cannot measure.
  RankMeasurer(RankChannel& channel, RankRoster& roster, const OpenClMeasurerOptions& options, std::ostream& log);
  ~RankMeasurer() override;

  const DeviceInfo& device() const override { return device_; }
  int parallelism() const override { return workers_; }
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop = nullptr) override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Flight;  // one batch being measured
  void Handle(const RankMessage& message, Flight& flight);
  void LoseRank(int rank, const std::string& why, Flight& flight);
  void ReportProgress(bool final);
  std::string MeasuredBy(int rank) const;

  RankChannel& channel_;
  RankRoster& roster_;
  std::ostream& log_;
  DeviceInfo device_;
  int workers_ = 0;
  int64_t next_id_ = 0;
  std::vector<Clock::time_point> last_heard_;  // by rank
  Clock::time_point started_ = Clock::now(), last_report_ = Clock::now();
  int64_t measured_ = 0, measured_at_last_report_ = 0;
};

}  // namespace tt
