#include "schedule/budget.h"

namespace tt {

Budget::Budget(int64_t trials, double seconds, const std::atomic<bool>* interrupt, int64_t already_used)
    : trials_(trials),
      used_(already_used),
      deadline_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(seconds > 0 ? seconds : 0))),
      timed_(seconds > 0),
      interrupt_(interrupt) {}

bool Budget::time_up() const { return timed_ && std::chrono::steady_clock::now() >= deadline_; }

}  // namespace tt
