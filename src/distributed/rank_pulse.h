#pragma once
// Rank 0's pulse: a message to every worker rank that is not lost, every second, from a thread
// of its own, from the start of the job to its end, whatever rank 0's main thread is doing
// (opening a network, training a cost model, recording a batch). A worker rank that hears
// nothing from rank 0 for kRankZeroLostAfterS (worker_rank.h) knows that rank 0 is gone.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "distributed/rank_channel.h"
#include "distributed/rank_measurer.h"

namespace tt {

class RankZeroPulse {
 public:
  RankZeroPulse(RankChannel& channel, const RankRoster& roster);
  ~RankZeroPulse();  // stops the thread: before MPI_Finalize
  RankZeroPulse(const RankZeroPulse&) = delete;
  RankZeroPulse& operator=(const RankZeroPulse&) = delete;

 private:
  void Loop();

  RankChannel& channel_;
  const RankRoster& roster_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool ending_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace tt
