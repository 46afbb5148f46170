// What a network run's report adds up to: each task's best and latency, the network's sums.
#include <fmt/format.h>
#include <fmt/ranges.h>

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

// "conv2d_oc_vec: fastest of 2 tried (conv2d_winograd at 0.55 of it); not tried: conv2d_direct_local
// (prior 0.05: ...)". Ratios are of the settled sketch's best time.
std::string NetworkTaskReport::ExplainChoice() const {
  const auto best = Best();
  if (!best) return "no sketch has a result yet";
  std::vector<std::string> others, untried;
  int tried = 0;
  for (size_t s = 0; s < sketches.size(); ++s) {
    const SketchReport& sketch = sketches[s];
    if (sketch.best) {
      ++tried;
      if (s != best->first)
        others.push_back(
            fmt::format("{} at {:.2f} of it", sketch.template_name, best->second.time_s / sketch.best->time_s));
    } else {
      untried.push_back(fmt::format("{} (prior {:.2f}: {})", sketch.template_name, sketch.prior, sketch.prior_note));
    }
  }
  std::string why = fmt::format("{}: fastest of {} tried", sketches[best->first].template_name, tried);
  if (!others.empty()) why += fmt::format(" ({})", fmt::join(others, ", "));
  if (!untried.empty()) why += fmt::format("; not tried: {}", fmt::join(untried, ", "));
  return why;
}

double NetworkRunReport::LatencyS() const {
  double total = 0;
  for (const auto& t : tasks)
    if (const auto latency = t.LatencyS()) total += static_cast<double>(t.task.weight) * *latency;
  return total;
}

double NetworkRunReport::SearchEndLatencyS() const {
  return retimed.measurements > 0 ? retimed.latency_before_s : LatencyS();
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

std::optional<int64_t> TrialsToWithinOnePercent(const std::vector<std::pair<int64_t, double>>& curve,
                                                double search_end_s) {
  for (const auto& [trials, latency_s] : curve)
    if (latency_s <= search_end_s * 1.01 || trials == curve.back().first) return trials;
  return std::nullopt;
}

}  // namespace tt
