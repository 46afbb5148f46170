#pragma once
// AutoTVM's model-based tuner (XGBTuner): random configs until train_every observations have
// arrived, then an XGBoost cost model on knob features, simulated annealing over that model
// to plan the plan_size best-predicted unseen configs, proposed in order with an epsilon share
// of random ones; retrained after every train_every further observations.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/rng.h"
#include "model/knob_features.h"
#include "model/xgb_cost_model.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct XgbTunerOptions {
  XgbObjective objective = XgbObjective::kRank;
  size_t plan_size = 64;
  size_t train_every = 64;  // observations between fits; the first fit waits for this many
  double epsilon = 0.05;    // share of proposals drawn at random instead of from the plan
  size_t sa_walkers = 128;
  size_t sa_steps = 200;
  size_t sa_early_stop = 50;  // steps without a change to the plan that end the annealing

  void Validate() const;  // throws UserError
  // Keys "objective" (rank|reg), "plan_size", "train_every" (default: plan_size), "epsilon",
  // "sa_walkers", "sa_steps", "sa_early_stop"; throws UserError for unknown keys, bad values.
  static XgbTunerOptions Parse(const TunerOptionMap& options);
};

class XgbTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  XgbTuner(const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options = {});
  XgbTuner(const ConfigSpace& space, uint64_t seed, XgbTunerOptions options);
  void Seed(const std::vector<Observation>& history) override { Update(history); }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

  // Wall-clock seconds of every model fit so far, in order.
  std::vector<double> ModelFitSeconds() const override { return model_.fit_seconds(); }

 private:
  bool ShouldRetrain() const;
  void Replan();
  std::vector<Config> StartingWalkers();
  std::optional<Config> NextCandidate();

  const ConfigSpace& space_;
  XgbTunerOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  KnobFeatures features_;
  XgbCostModel model_;
  std::vector<Config> observed_;
  std::vector<float> fitness_;  // GFLOPS of observed_, 0 for failures
  size_t new_since_fit_ = 0;
  std::vector<Config> plan_;
  size_t plan_next_ = 0;
  std::vector<Config> walkers_;  // kept between anneals, as AutoTVM's persistent optimizer does
};

}  // namespace tt
