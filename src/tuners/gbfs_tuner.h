#pragma once
// G-BFS (Zhang et al. 2019; a baseline of the OpEvo paper): greedy best-first search over the
// space's neighbourhood graph, where two configs are neighbours when one knob differs by one
// step of its topology (a prime factor moved between two positions of a split, the next
// discrete value, ...). Measured configs wait in a queue ordered by fitness; each step takes
// the best one not yet expanded and measures rho of its unseen valid neighbours, chosen at
// random. The search starts from the config without multi-level tiling (every split's whole
// extent in its first factor, every other knob at its first value) or, when history is
// seeded, from the best recorded config (primed with a warm start: from the rho best
// transferred configs, measured first); it restarts at a random unseen config when the queue
// runs dry. The seed picks among equally good neighbours from the first step on; with
// random_start=1 it also picks the start (a random valid config), for spreads over seeds
// that do not all begin at the same point.
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

#include "core/rng.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct GbfsOptions {
  size_t rho = 5;             // neighbours measured per expanded config (the paper's setting)
  bool random_start = false;  // start at a random valid config instead of the untiled one

  static const OptionTable<GbfsOptions>& Table();
  void Validate() const;                                    // throws UserError
  static GbfsOptions Parse(const TunerOptionMap& options);  // throws UserError
};

class GbfsTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  GbfsTuner(const ConfigSpace& space, uint64_t seed, GbfsOptions options = {});
  void Seed(const std::vector<Observation>& history) override;
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

 private:
  struct Queued {
    double fitness;
    uint64_t order;  // arrival; on equal fitness the earlier config is expanded first
    Config config;
    bool operator<(const Queued& other) const {
      return fitness != other.fitness ? fitness < other.fitness : order > other.order;
    }
  };
  std::vector<Config> FreshNeighbours(const Config& config) const;
  std::optional<Config> Start();

  const ConfigSpace& space_;
  GbfsOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  std::priority_queue<Queued> queue_;  // measured, not yet expanded
  uint64_t arrivals_ = 0;
  bool started_ = false;
  std::deque<Config> warm_;  // the best transferred configs, the first batch
};

}  // namespace tt
