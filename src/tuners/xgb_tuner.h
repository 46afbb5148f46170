#pragma once
// AutoTVM's model-based tuner (XGBTuner): random configs until train_every observations have
// arrived, then an XGBoost cost model on knob features, simulated annealing over that model
// to plan the plan_size best-predicted unseen configs, proposed in order with an epsilon share
// of random ones; retrained after every train_every further observations. A warm start from
// other devices' records of this task (Prime) trains the first model before any measurement:
// each device's records are a ranking group of their own, weighed by the device's similarity
// and less as this task's own results arrive; its best configs start the annealing walkers.
// Records of other workloads (a similar-workloads warm start) train a cross-task model
// (model/cross_task_model.h) that plans the first batches, before this task has a model.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/rng.h"
#include "model/cross_task_model.h"
#include "model/knob_features.h"
#include "model/simulated_annealing.h"
#include "model/xgb_cost_model.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"
#include "tuners/unseen_configs.h"

namespace tt {

struct XgbTunerOptions {
  std::string objective = "rank";  // or "reg"
  size_t plan_size = 64;
  size_t train_every = 0;  // observations between fits, 0 for plan_size; the first fit waits for this many
  double epsilon = 0.05;   // share of proposals drawn at random instead of from the plan
  size_t sa_walkers = 128;
  size_t sa_steps = 200;
  size_t sa_early_stop = 50;          // steps without a change to the plan that end the annealing
  bool transfer = false;              // xgb-tl
  size_t transfer_keep = 256;         // history rows kept by the filter for each fit
  double importance_smoothing = 0.5;  // weight of the newest split counts in the moving average

  // xgb's keys; for xgb-tl (transfer on) also "transfer_keep" and "importance_smoothing".
  static const OptionTable<XgbTunerOptions>& Table(bool transfer);
  void Validate() const;                                                               // throws UserError
  static XgbTunerOptions Parse(const TunerOptionMap& options, bool transfer = false);  // throws UserError
};

class XgbTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  XgbTuner(const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options = {});
  XgbTuner(const ConfigSpace& space, uint64_t seed, XgbTunerOptions options);
  void Seed(const std::vector<Observation>& history) override { Update(history); }
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

  // Wall-clock seconds of every model fit so far, in order.
  std::vector<double> ModelFitSeconds() const override { return model_.fit_seconds(); }

 private:
  bool ShouldRetrain() const;
  void Replan();
  void PlanFromCrossTask();
  void Plan(const BatchScorer& score);
  std::vector<Config> StartingWalkers();
  std::optional<Config> NextCandidate();
  FeatureMatrix Features(const std::vector<Config>& configs) const;
  std::vector<size_t> FilterTransfer();
  void PrimeFromRecords(const WarmStart& warm_start);  // same-workload records: prior rows
  FitGroups AppendPrior(FeatureMatrix& train, std::vector<float>& targets) const;
  void UpdateImportance();

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
  // Transfer mode.
  std::vector<float> workload_features_;
  FeatureMatrix transfer_{0, 0, {}};  // rows of other workloads' trials
  std::vector<float> transfer_gflops_;
  std::vector<double> transfer_similarity_;
  std::vector<double> importance_;  // per feature, sums to 1 once a model exists
  // Plain mode's warm start: other devices' records, one group per device, targets relative to
  // that device's best.
  FeatureMatrix prior_{0, 0, {}};
  std::vector<float> prior_targets_;
  FitGroups prior_groups_;                    // weights: the devices' similarity
  std::vector<Config> warm_walkers_;          // the best transferred configs
  std::optional<CrossTaskModel> cross_task_;  // of other workloads' records, for the cold start
  bool cross_task_planned_ = false;
};

}  // namespace tt
