#include "distributed/rank_pulse.h"

#include <chrono>

namespace tt {

constexpr auto kPulseEvery = std::chrono::seconds(1);

RankZeroPulse::RankZeroPulse(RankChannel& channel, const RankRoster& roster)
    : channel_(channel), roster_(roster), thread_([this] { Loop(); }) {}

RankZeroPulse::~RankZeroPulse() {
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void RankZeroPulse::Loop() {
  std::unique_lock lock(mutex_);
  while (!ending_) {
    // A lost rank gets nothing more: a send to a dead rank may never complete.
    for (int r = 1; r < channel_.size(); ++r)
      if (!roster_.ranks[static_cast<size_t>(r)].lost) channel_.Send(r, RankTag::kHeartbeat, "");
    wake_.wait_for(lock, kPulseEvery, [this] { return ending_; });
  }
}

}  // namespace tt
