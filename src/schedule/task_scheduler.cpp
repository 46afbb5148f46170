#include "schedule/task_scheduler.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/errors.h"
#include "core/named_table.h"
#include "schedule/ucb.h"

namespace tt {
namespace {

// Tasks of one operator and the same sketches are similar whatever their size: a 1x1 projection
// running at a tenth of the stride-2 layers' throughput has that much to gain, though its time
// is small.
bool Similar(const SchedulerTaskState& a, const SchedulerTaskState& b) {
  return a.op == b.op && a.sketches == b.sketches && a.flops > 0 && b.flops > 0;
}

std::vector<size_t> Live(const std::vector<SchedulerTaskState>& tasks) {
  std::vector<size_t> live;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (!tasks[i].exhausted) live.push_back(i);
  if (live.empty()) throw std::logic_error("a task scheduler was asked to pick among exhausted tasks");
  return live;
}

class RoundRobin : public TaskScheduler {
 public:
  size_t Pick(const std::vector<SchedulerTaskState>& tasks, Rng&) override {
    Live(tasks);
    for (size_t step = 0; step < tasks.size(); ++step) {
      const size_t i = next_++ % tasks.size();
      if (!tasks[i].exhausted) return i;
    }
    return Live(tasks).front();
  }

 private:
  size_t next_ = 0;
};

// Ansor: the task whose next round promises the largest drop of the weighted latency, with an
// epsilon chance of a random one; ties are broken at random.
class Gradient : public TaskScheduler {
 public:
  explicit Gradient(SchedulerOptions options) : options_(options) {}
  size_t Pick(const std::vector<SchedulerTaskState>& tasks, Rng& rng) override {
    const std::vector<size_t> live = Live(tasks);
    if (rng.Chance(options_.epsilon)) return live[rng.Below(live.size())];
    const std::vector<double> gradients = LatencyGradients(tasks, options_);
    return ArgmaxRandomTie(
        live, [&](size_t i) { return -gradients[i]; }, rng);
  }

 private:
  SchedulerOptions options_;
};

// Bansor eq. 5-6: reward = |gradient| / max |gradient|, plus C sqrt(2 ln N / N_i).
class Ucb : public TaskScheduler {
 public:
  explicit Ucb(SchedulerOptions options) : options_(options) {}
  size_t Pick(const std::vector<SchedulerTaskState>& tasks, Rng& rng) override {
    const std::vector<size_t> live = Live(tasks);
    const std::vector<double> gradients = LatencyGradients(tasks, options_);
    double largest = 0;
    int64_t rounds = 0;
    for (size_t i : live) {
      if (tasks[i].rounds() == 0) return i;  // every task once before comparing bounds
      largest = std::max(largest, std::fabs(gradients[i]));
      rounds += tasks[i].rounds();
    }
    return ArgmaxRandomTie(
        live,
        [&](size_t i) {
          const double reward = largest > 0 ? std::fabs(gradients[i]) / largest : 0;
          return UcbBound(reward, rounds, tasks[i].rounds(), options_.ucb_c);
        },
        rng);
  }

 private:
  SchedulerOptions options_;
};

// The task's latest rounds, counted back from its last, that did not lower its best by at least
// `progress` (a share of the best before them); noise-sized gains do not count as progress.
int64_t RoundsWithoutProgress(const SchedulerTaskState& t, const SchedulerOptions& o) {
  int64_t stuck = 0;
  for (int64_t r = t.rounds() - 1; r > 0; --r, ++stuck)
    if (t.best_after_round[r] < t.best_after_round[r - 1] * (1 - o.progress)) break;
  return stuck;
}

}  // namespace

std::vector<double> LatencyGradients(const std::vector<SchedulerTaskState>& tasks, const SchedulerOptions& o) {
  std::vector<double> gradients(tasks.size(), 0);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const SchedulerTaskState& t = tasks[i];
    const double g = t.best_time_s;
    if (!std::isfinite(g) || t.rounds() == 0) {
      gradients[i] = -std::numeric_limits<double>::max();  // nothing known yet: most promising
      continue;
    }
    // Observed: how much the last `backward_window` rounds lowered its best time, per round.
    double backward = 0;
    const int64_t n = t.rounds();
    if (n > o.backward_window)
      backward = (t.best_after_round[n - 1] - t.best_after_round[n - 1 - o.backward_window]) / o.backward_window;
    // Expected: one more round lowers it as the average round did so far, or towards what the
    // best throughput among similar tasks (times beta) would give. That second promise is a
    // guess a task may never make good: VGG-16's fc6 streams 411 MB where fc8 sits in the cache,
    // and it took 195-287 of 400 trials, most after its last gain. So the promise halves every
    // `reach_half_life` rounds in a row without progress, and a round with progress renews it.
    double reachable = std::numeric_limits<double>::infinity();
    for (const SchedulerTaskState& other : tasks)
      if (&other != &t && Similar(t, other) && std::isfinite(other.best_time_s) && other.best_time_s > 0)
        reachable = std::min(reachable, o.beta * t.flops / (other.flops / other.best_time_s));
    if (t.history_gflops > 0) reachable = std::min(reachable, o.beta * t.flops / (t.history_gflops * 1e9));
    double next = g - g / static_cast<double>(n);
    if (reachable < g) {
      const double belief = std::exp2(-static_cast<double>(RoundsWithoutProgress(t, o)) / o.reach_half_life);
      next = std::min(next, g - (g - reachable) * belief);
    }
    const double forward = std::min(0.0, next - g);
    gradients[i] = t.weight * (o.alpha * backward + (1 - o.alpha) * forward);
  }
  return gradients;
}

namespace {

struct SchedulerEntry {
  std::string_view name;
  std::unique_ptr<TaskScheduler> (*make)(const SchedulerOptions&);
};

// A new scheduler is one more row here; the command line reads its choices from this table.
constexpr std::array<SchedulerEntry, 3> kSchedulers{{
    {"round-robin",
     [](const SchedulerOptions&) -> std::unique_ptr<TaskScheduler> { return std::make_unique<RoundRobin>(); }},
    {"gradient",
     [](const SchedulerOptions& o) -> std::unique_ptr<TaskScheduler> { return std::make_unique<Gradient>(o); }},
    {"ucb", [](const SchedulerOptions& o) -> std::unique_ptr<TaskScheduler> { return std::make_unique<Ucb>(o); }},
}};

}  // namespace

std::unique_ptr<TaskScheduler> MakeTaskScheduler(std::string_view name, const SchedulerOptions& options) {
  return FindNamed(kSchedulers, "scheduler", name).make(options);
}

void CheckTaskSchedulerName(std::string_view name) { FindNamed(kSchedulers, "scheduler", name); }

std::vector<std::string> TaskSchedulerNames() { return NamesOf(kSchedulers); }

}  // namespace tt
