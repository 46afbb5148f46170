#pragma once
// The options of the Bayesian-optimization tuner (bo_tuner.h): what `--tuner bo:KEY=VALUE`
// sets, with ranges, documentation and the budget-scaled initial design.
#include <cstddef>

#include "tuners/tuner_options.h"

namespace tt {

struct BoOptions {
  size_t budget = 0;         // trials the run expects (tune and compare pass --trials); 0: unknown
  size_t init = 0;           // random configs before the first model; 0: scaled to the budget
  double init_local = 0;     // share of those drawn next to the best config measured so far
  size_t centre = 1;         // of those, the centre of the space and its neighbours, on a cold start
  size_t spread = 32;        // random candidates per initial-design look, the farthest kept (0, 1: plain random)
  double trend = 0;          // starting variance per feature of a linear kernel beside the GP's (0: none)
  size_t candidates = 1536;  // configs scored per batch (all fresh valid ones when fewer)
  size_t neighbours_of = 8;  // best configs whose fresh neighbours join the candidates
  double epsilon = 0;        // share of proposals drawn at random instead
  double xi = 0;             // expected improvement's margin, in standard deviations of log GFLOPS
  double feasibility = 1;    // exponent of the chance to run in the acquisition (0: ignored)
  size_t greedy = 1;         // picks per batch with the best predicted mean (pure exploitation)
  size_t local = 1;          // then picks per batch among the fresh neighbours of the best config
  size_t hyper_steps = 30;   // Rprop steps of each hyperparameter fit
  size_t max_rows = 256;     // results the GP is fitted on at most: the best half, the rest at random

  static const OptionTable<BoOptions>& Table();
  void Validate() const;                                  // throws UserError
  static BoOptions Parse(const TunerOptionMap& options);  // throws UserError
  // The initial design for this budget (0 when a warm start's prior stands in for it).
  size_t InitialDesign(bool primed) const;
};

}  // namespace tt
