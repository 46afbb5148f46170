// What a network run's report adds up to: each task's best and latency, the network's sums.
#include <algorithm>

#include "schedule/network_tuner.h"

namespace tt {

std::optional<std::pair<size_t, TaskBest>> NetworkTaskReport::Best() const {
  std::optional<std::pair<size_t, TaskBest>> best;
  for (size_t s = 0; s < sketches.size(); ++s)
    if (sketches[s].best && (!best || sketches[s].best->time_s < best->second.time_s)) best = {s, *sketches[s].best};
  return best;
}

std::optional<double> NetworkTaskReport::LatencyS() const {
  if (const auto best = Best()) return std::min(best->second.time_s, default_time_s.value_or(best->second.time_s));
  return default_time_s;
}

double NetworkRunReport::LatencyS() const {
  double total = 0;
  for (const auto& t : tasks)
    if (const auto latency = t.LatencyS()) total += static_cast<double>(t.task.weight) * *latency;
  return total;
}

double NetworkRunReport::DefaultLatencyS() const {
  double total = 0;
  for (const auto& t : tasks)
    if (t.default_time_s) total += static_cast<double>(t.task.weight) * *t.default_time_s;
  return total;
}

int NetworkRunReport::TasksAtDefault() const {
  return static_cast<int>(
      std::count_if(tasks.begin(), tasks.end(), [](const auto& t) { return !t.Best() && t.default_time_s; }));
}

int NetworkRunReport::TasksUnknown() const {
  return static_cast<int>(std::count_if(tasks.begin(), tasks.end(), [](const auto& t) { return !t.LatencyS(); }));
}

int NetworkRunReport::TasksUnmeasured() const {
  return static_cast<int>(std::count_if(tasks.begin(), tasks.end(), [](const auto& t) { return t.Unmeasured(); }));
}

int NetworkRunReport::WarmTasks() const {
  return static_cast<int>(std::count_if(tasks.begin(), tasks.end(), [](const auto& t) { return t.started_warm; }));
}

}  // namespace tt
