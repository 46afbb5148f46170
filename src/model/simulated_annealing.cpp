#include "model/simulated_annealing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_set>
#include <utility>

namespace tt {
namespace {

// Valid moves tried before a walker stays where it is for this step.
constexpr int kMoveTries = 8;

// The `capacity` best-scored distinct configs offered so far.
class TopConfigs {
 public:
  TopConfigs(const ConfigSpace& space, size_t capacity) : space_(space), capacity_(capacity) {}

  // True when `config` entered the kept set.
  bool Offer(const Config& config, float score) {
    const Entry entry{score, space_.ToIndex(config)};
    if (capacity_ == 0 || kept_.count(entry.second)) return false;
    if (heap_.size() == capacity_) {
      if (!(heap_.front() < entry)) return false;
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      kept_.erase(heap_.back().second);
      heap_.pop_back();
    }
    heap_.push_back(entry);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    kept_.insert(entry.second);
    return true;
  }

  std::vector<Config> BestFirst() const {
    std::vector<Entry> sorted = heap_;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    std::vector<Config> configs;
    for (const auto& [score, index] : sorted) configs.push_back(space_.FromIndex(index));
    return configs;
  }

 private:
  using Entry = std::pair<float, uint64_t>;  // score, flat index (ties broken by index)
  const ConfigSpace& space_;
  size_t capacity_;
  std::vector<Entry> heap_;  // min-heap: the worst kept config on top
  std::unordered_set<uint64_t> kept_;
};

// AutoTVM's random walk: one knob (with a choice) takes another value; invalid results are
// not taken, so a walker stays inside the valid region.
Config RandomMove(const ConfigSpace& space, const std::vector<size_t>& movable, const Config& from, Rng& rng) {
  if (movable.empty()) return from;
  for (int i = 0; i < kMoveTries; ++i) {
    Config to = from;
    const size_t k = movable[rng.Below(movable.size())];
    const uint32_t other = static_cast<uint32_t>(rng.Below(space.knob(k).size() - 1));
    to[k] = other < from[k] ? other : other + 1;
    if (space.IsValid(to)) return to;
  }
  return from;
}

}  // namespace

AnnealingResult Anneal(const ConfigSpace& space, std::vector<Config> walkers, const BatchScorer& score,
                       const ConfigFilter& admit, const AnnealingParams& params, Rng& rng) {
  std::vector<size_t> movable;
  for (size_t k = 0; k < space.num_knobs(); ++k)
    if (space.knob(k).size() > 1) movable.push_back(k);
  TopConfigs top(space, params.plan_size);
  std::vector<float> scores = score(walkers);
  for (size_t i = 0; i < walkers.size(); ++i)
    if (admit(walkers[i])) top.Offer(walkers[i], scores[i]);

  const double cooling = 1.0 / static_cast<double>(params.max_steps + 1);
  double temperature = 1;
  size_t last_change = 0;
  for (size_t step = 0; step < params.max_steps && step < last_change + params.early_stop; ++step) {
    std::vector<Config> moved;
    for (const auto& w : walkers) moved.push_back(RandomMove(space, movable, w, rng));
    const std::vector<float> moved_scores = score(moved);
    for (size_t i = 0; i < walkers.size(); ++i) {
      // A better score is always taken; a worse one less often as the temperature falls.
      const double gain = (moved_scores[i] - scores[i]) / (temperature + 1e-5);
      if (rng.Uniform() < std::exp(std::min(gain, 1.0))) {
        walkers[i] = moved[i];
        scores[i] = moved_scores[i];
      }
      if (admit(moved[i]) && top.Offer(moved[i], moved_scores[i])) last_change = step;
    }
    temperature -= cooling;
  }
  return {top.BestFirst(), std::move(walkers)};
}

}  // namespace tt
