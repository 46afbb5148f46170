#pragma once
// A task's recorded best is the least of many measurements taken minutes apart on a machine
// whose speed drifts, so it is optimistic and sometimes the wrong config (the winner's curse).
// After the search, a task's leaders (its fastest configs, within a margin of its best) are
// timed again side by side, in interleaved rounds, and their records keep every repeat
// (TrialHistory::Retime, RetimedResult): the best, its time and an estimate built on it are then
// what the configs take side by side. A leader that now fails (a flaky answer) is recorded as
// failed. tune-network re-times its heaviest tasks' leaders, tune and sweep their task's (a
// user's kernel keeps Kernel Tuner's `iterations` runs per config and is not re-timed).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "history/trial_history.h"
#include "measure/measurer.h"
#include "schedule/tuning_task.h"

namespace tt {

inline constexpr double kLeaderMargin = 1.25;  // a config this much slower than the best may still be faster
inline constexpr int kRetimeRounds = 2;        // the second in reverse order: neither end is always timed last
inline constexpr int kMaxLeaders = 3;          // configs per task timed again

// One sketch of a task: its tuning task (its best is refreshed) and its records.
struct SketchRecords {
  TuningTask* task = nullptr;
  TaskIds ids;
};

// The fastest ok configs over a task's sketches, at most `max_leaders`, none slower than
// kLeaderMargin times the fastest: (sketch index, config key), fastest first.
std::vector<std::pair<size_t, std::string>> Leaders(const TrialHistory& store,
                                                    const std::vector<SketchRecords>& sketches, int max_leaders);

struct RetimeOutcome {
  int64_t measurements = 0;  // configs timed again (each round counts)
  int64_t failed = 0;        // leaders that failed when timed again, now recorded as failures
  bool stopped = false;      // asked to stop: what was timed is recorded
  std::string broken;        // non-empty: the environment broke
};

// Times `leaders` (from Leaders) again, kRetimeRounds times, records each result and refreshes
// every sketch's best from its records.
RetimeOutcome RetimeLeaders(TrialHistory& store, Measurer& measurer, const std::vector<SketchRecords>& sketches,
                            const std::vector<std::pair<size_t, std::string>>& leaders, const std::atomic<bool>* stop);

// The leaders that `allowance` measurements can time kRetimeRounds times (at most kMaxLeaders),
// timed again; nothing when it allows less than one leader.
RetimeOutcome RetimeWithin(TrialHistory& store, Measurer& measurer, const std::vector<SketchRecords>& sketches,
                           int64_t allowance, const std::atomic<bool>* stop);

}  // namespace tt
