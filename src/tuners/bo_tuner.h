#pragma once
// Bayesian optimization over a config space: a Gaussian process (Matern 5/2, one length
// scale per feature, fitted by marginal likelihood) models log GFLOPS of the configs that ran;
// another models whether a config runs at all (failures cost a
// trial but say nothing about speed, as in BaCO; here a second GP of success and failure). Each batch maximizes
// expected improvement times that probability over the candidates (every fresh valid config when few enough, else a
// random sample plus the neighbours of the best configs), greedily: after each pick the candidates' variances are
// conditioned on it, so a batch spreads out instead of repeating one guess; one pick per batch takes the best
// predicted mean and one the best config's best neighbour (the next best config's, once the best's are all
// measured). An initial design of a size scaled to the budget comes first: on a cold start the centre of the space
// (every knob's middle value), then random configs.
//
// Warm start (Prime with transfer samples, e.g. other devices' records of the same task):
// each source is modelled on its own (exact records, else a GP of its records) and their sum,
// weighted by similarity, is the prior mean; the weights are then refitted (ridge regression
// towards the similarity-based prior) as this task's own results arrive, so that a source that
// ranks configs differently loses its say.
#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "model/gaussian_process.h"
#include "tuners/bo_options.h"
#include "tuners/tuner.h"
#include "tuners/unseen_configs.h"

namespace tt {

class BoTuner : public Tuner {
 public:
  // `space` must outlive the tuner. Throws UserError for invalid options.
  BoTuner(const ConfigSpace& space, uint64_t seed, BoOptions options = {});
  void Seed(const std::vector<Observation>& history) override { Update(history); }
  void Prime(const WarmStart& warm_start) override;
  bool UsesWarmStart() const override { return true; }
  std::vector<Config> NextBatch(size_t max_size) override;
  void Update(const std::vector<Observation>& measured) override;

  // How much each warm-start source counts now (prior mean weights), in source order.
  std::vector<double> SourceWeights() const;

 private:
  struct Source {
    int id = 0;
    double similarity = 0;
    std::unordered_map<uint64_t, double> exact;  // flat index -> standardized log GFLOPS
    GaussianProcess model;                       // of its records, for configs it lacks
    double log_sd = 0;                           // spread of its log GFLOPS
  };

  void BuildFeatureTable();
  Eigen::VectorXd FeaturesOf(const Config& config) const;
  Eigen::MatrixXd FeatureRows(const std::vector<Config>& configs) const;
  std::vector<Config> Candidates();
  void AddNeighbours(const Config& config, std::vector<Config>& out, std::unordered_map<uint64_t, bool>& taken);
  std::optional<Config> InitialDesignConfig(const std::vector<Config>& batch);
  std::optional<Config> SpreadRandomConfig(const std::vector<Config>& batch);
  std::vector<Config> ModelBatch(size_t size);
  struct Fitted {
    Eigen::Index n = 0;  // results modelled
    double best = 0;     // the best standardized target
    double intercept = 0;
    size_t successes = 0;
  };
  std::optional<Fitted> FitModel();
  std::vector<Config> PickBatch(const std::vector<Config>& candidates, const std::vector<char>& near_best,
                                const Fitted& fitted, size_t size);
  std::optional<size_t> BestObserved() const;       // index of the fastest config that ran
  std::vector<size_t> BestFirst(size_t top) const;  // indices of the `top` fastest that ran, fastest first
  // Prior mean at each config: sum over sources of weight x source prediction.
  Eigen::MatrixXd SourcePredictions(const std::vector<Config>& configs, const Eigen::MatrixXd& features) const;
  void FitSourceWeights(const Eigen::MatrixXd& predictions, const Eigen::VectorXd& y);
  void EnumerateValid();
  Eigen::VectorXd ChanceToRun(size_t successes, const Eigen::MatrixXd& candidates);

  const ConfigSpace& space_;
  BoOptions options_;
  Rng rng_;
  UnseenConfigs unseen_;
  // Per knob, per value index: its feature columns.
  std::vector<std::vector<std::vector<double>>> knob_features_;
  size_t dims_ = 0;
  std::vector<Config> observed_;
  std::vector<double> fitness_;  // GFLOPS, 0 for failures
  GaussianProcess gp_;
  std::optional<GpHyper> hyper_;
  size_t hyper_fitted_at_ = 0;   // successes when the hyperparameters were last fitted
  GaussianProcess feasibility_;  // of success and failure
  std::optional<GpHyper> feasibility_hyper_;
  size_t feasibility_fitted_at_ = 0;
  std::vector<Source> sources_;
  std::vector<double> source_weight_;
  std::vector<Config> source_best_;  // the sources' best configs in this space, best first
  bool enumerated_ = false;
  std::vector<uint64_t> valid_;  // every valid flat index, when the space is small enough
};

}  // namespace tt
