#include "schedule/sketch_selector.h"

#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/named_table.h"
#include "schedule/ucb.h"

namespace tt {
namespace {

std::vector<size_t> Live(const std::vector<SketchState>& sketches) {
  std::vector<size_t> live;
  for (size_t i = 0; i < sketches.size(); ++i)
    if (!sketches[i].exhausted) live.push_back(i);
  if (live.empty()) throw std::logic_error("a sketch selector was asked to pick among exhausted sketches");
  return live;
}

class Uniform : public SketchSelector {
 public:
  size_t Pick(const std::vector<SketchState>& sketches, Rng& rng) const override {
    const std::vector<size_t> live = Live(sketches);
    return live[rng.Below(live.size())];
  }
};

// Reward r_i = (fastest best among sketches) / (best of sketch i), in [0, 1]. A sketch without
// a result is tried first when nothing speaks against it (most promising first); otherwise its
// prior stands for its reward, counted as one round. Sketches that cannot win are left out.
class Ucb : public SketchSelector {
 public:
  explicit Ucb(double c) : c_(c) {}
  size_t Pick(const std::vector<SketchState>& sketches, Rng& rng) const override {
    const std::vector<size_t> live = Live(sketches);
    double fastest = std::numeric_limits<double>::infinity();
    int64_t rounds = 0;
    for (const SketchState& s : sketches) fastest = std::min(fastest, s.best_time_s), rounds += s.rounds;
    const auto known = [&](size_t i) { return std::isfinite(sketches[i].best_time_s); };
    std::optional<size_t> fresh;
    for (size_t i : live)
      if (!known(i) && sketches[i].prior >= kNothingAgainst && (!fresh || sketches[i].prior > sketches[*fresh].prior))
        fresh = i;
    if (fresh) return *fresh;
    std::vector<size_t> contenders;
    for (size_t i : live)
      if (!known(i) || fastest / sketches[i].best_time_s >= kCannotWin) contenders.push_back(i);
    if (contenders.empty()) contenders = live;
    return ArgmaxRandomTie(
        contenders,
        [&](size_t i) {
          const SketchState& s = sketches[i];
          const double reward = known(i) ? fastest / s.best_time_s : s.prior;
          return UcbBound(reward, std::max<int64_t>(rounds, 1), std::max<int64_t>(s.rounds, 1), c_);
        },
        rng);
  }

 private:
  double c_;
};

struct SelectorEntry {
  std::string_view name;
  std::unique_ptr<SketchSelector> (*make)(double c);
};

// A new selector is one more row here; the command line reads its choices from this table.
constexpr std::array<SelectorEntry, 2> kSelectors{{
    {"ucb", [](double c) -> std::unique_ptr<SketchSelector> { return std::make_unique<Ucb>(c); }},
    {"uniform", [](double) -> std::unique_ptr<SketchSelector> { return std::make_unique<Uniform>(); }},
}};

}  // namespace

std::unique_ptr<SketchSelector> MakeSketchSelector(std::string_view name, double c) {
  return FindNamed(kSelectors, "sketch policy", name).make(c);
}

void CheckSketchSelectorName(std::string_view name) { FindNamed(kSelectors, "sketch policy", name); }

std::vector<std::string> SketchSelectorNames() { return NamesOf(kSelectors); }

}  // namespace tt
