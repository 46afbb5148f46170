#pragma once
// Which sketch (kernel template) of a task gets its next round: Bansor's UCB on the best time
// each sketch has reached (eq. 3-4), informed by each sketch's prior (sketch_prior.h), or
// uniformly at random as Ansor does.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"

namespace tt {

struct SketchState {
  double best_time_s = std::numeric_limits<double>::infinity();  // none yet: infinity
  int64_t rounds = 0;
  bool exhausted = false;
  double prior = 1;  // expected ratio to the fastest sketch before its own results (SketchPrior)
};

// ucb: a sketch without a result whose prior is at least this (nothing speaks against it) is
// tried before any sketch gets a second look; one with a lower prior waits its turn in the
// bound, its prior standing for its reward.
inline constexpr double kNothingAgainst = 0.9;
// ucb: a sketch whose best is slower than the fastest sketch's by more than 1 / this gets no
// more rounds while another sketch is left: it cannot win.
inline constexpr double kCannotWin = 0.25;

class SketchSelector {
 public:
  virtual ~SketchSelector() = default;
  // The index of a sketch that is not exhausted; at least one must not be.
  virtual size_t Pick(const std::vector<SketchState>& sketches, Rng& rng) const = 0;
};

// "ucb" (with exploration constant c) or "uniform"; throws UserError naming the known ones.
std::unique_ptr<SketchSelector> MakeSketchSelector(std::string_view name, double c = 0.3);
void CheckSketchSelectorName(std::string_view name);  // throws UserError as MakeSketchSelector does
std::vector<std::string> SketchSelectorNames();       // in a fixed order (the command line's help)

}  // namespace tt
