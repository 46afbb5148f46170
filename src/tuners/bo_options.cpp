#include "tuners/bo_options.h"

#include <algorithm>

namespace tt {
namespace {

// Budget assumed when none is given (`tune` and `compare` always give one).
constexpr size_t kDefaultBudget = 300;

}  // namespace

const OptionTable<BoOptions>& BoOptions::Table() {
  static const OptionTable<BoOptions> table{
      {"budget", &BoOptions::budget,
       "trials the run expects (0: unknown, taken as 300); tune, compare and tune-network (per task) set it"},
      {"init", &BoOptions::init,
       "random configs before the first model (0: budget/40, 4 to 20; none after a warm start)"},
      {"init_local", &BoOptions::init_local,
       "share of the initial design drawn among the fresh neighbours of the best config measured so far", kProbability},
      {"centre", &BoOptions::centre,
       "configs of a cold start's initial design taken from the centre of the space (every knob's middle value) and "
       "its neighbours, before the random ones"},
      {"spread", &BoOptions::spread,
       "random candidates drawn per random look of the initial design, the one farthest from the configs chosen so "
       "far kept (0 or 1: a plain random draw)"},
      {"trend", &BoOptions::trend,
       "starting variance per feature of a linear kernel beside the Matern one, fitted with it (0: none)"},
      {"candidates", &BoOptions::candidates, "configs scored per batch (every fresh valid one when fewer)",
       kAtLeastOne},
      {"neighbours_of", &BoOptions::neighbours_of, "best configs whose fresh neighbours are always candidates"},
      {"epsilon", &BoOptions::epsilon, "share of proposals drawn at random instead", kProbability},
      {"xi", &BoOptions::xi, "margin of expected improvement, in standard deviations of log GFLOPS"},
      {"feasibility", &BoOptions::feasibility, "exponent of the chance to run in the acquisition (0: ignored)"},
      {"greedy", &BoOptions::greedy, "picks per batch by the best predicted mean instead of expected improvement"},
      {"local", &BoOptions::local,
       "then picks per batch by expected improvement among the fresh neighbours of the best config alone (of the "
       "next best once those are all measured)"},
      {"hyper_steps", &BoOptions::hyper_steps, "Rprop steps of each fit of the kernel's length scales"},
      {"max_rows", &BoOptions::max_rows, "results the model is fitted on at most (the best half, the rest at random)",
       OptionRange{2}},
  };
  return table;
}

void BoOptions::Validate() const { CheckOptionRanges("bo", Table(), *this); }

BoOptions BoOptions::Parse(const TunerOptionMap& options) { return ParseOptionTable("bo", Table(), options); }

size_t BoOptions::InitialDesign(bool primed) const {
  if (init > 0) return init;
  if (primed) return 0;
  const size_t b = budget > 0 ? budget : kDefaultBudget;
  return std::clamp<size_t>(b / 40, 4, 20);
}

}  // namespace tt
