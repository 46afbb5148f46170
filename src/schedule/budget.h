#pragma once
// When a run stops: a trial budget, optionally a wall-clock limit, and an interruption.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace tt {

class Budget {
 public:
  // seconds <= 0: no time limit. `interrupt` (may be null) is polled, never written.
  explicit Budget(int64_t trials, double seconds = 0, const std::atomic<bool>* interrupt = nullptr,
                  int64_t already_used = 0);

  void Spend(int64_t trials) { used_ += trials; }
  int64_t used() const { return used_; }
  int64_t trials() const { return trials_; }
  int64_t left() const { return trials_ > used_ ? trials_ - used_ : 0; }
  bool interrupted() const { return interrupt_ && interrupt_->load(); }
  bool time_up() const;
  bool Exhausted() const { return left() == 0 || time_up() || interrupted(); }
  const std::atomic<bool>* interrupt() const { return interrupt_; }

 private:
  int64_t trials_;
  int64_t used_;
  std::chrono::steady_clock::time_point deadline_;
  bool timed_;
  const std::atomic<bool>* interrupt_;
};

}  // namespace tt
