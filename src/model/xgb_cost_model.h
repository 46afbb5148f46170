#pragma once
// A cost model on XGBoost: gradient-boosted trees that score configs from their features.
// AutoTVM's XGBoostCostModel, with its tree parameters; the XGBoost C API stays in the .cpp.
#include <cstdint>
#include <memory>
#include <vector>

#include "model/feature_matrix.h"

namespace tt {

enum class XgbObjective {
  kRank,        // "rank:pairwise": learns the order of configs (AutoTVM's xgb-rank)
  kRegression,  // "reg:squarederror": learns the normalised GFLOPS themselves
};

struct XgbParams {
  XgbObjective objective = XgbObjective::kRank;
  int rounds = 100;  // boosting rounds per fit; no early stop, so a fit costs the same each time
  int max_depth = 3;
  double eta = 0.3;
  double gamma = 0.0001;
  double min_child_weight = 1;
  double lambda = 1;
  double alpha = 0;
  int threads = 1;  // one thread: fits are small, and the result is then bitwise reproducible
  uint64_t seed = 0;
};

class XgbBooster;

// Training rows in consecutive groups, each with a weight: a ranking objective compares
// configs within a group only (rows of devices of other speeds never against each other);
// a group's weight scales its say (per row for regression). Sizes sum to the rows.
struct FitGroups {
  std::vector<unsigned> sizes;
  std::vector<float> weights;  // one per group
};

class XgbCostModel {
 public:
  explicit XgbCostModel(XgbParams params = {});
  ~XgbCostModel();
  XgbCostModel(XgbCostModel&&) noexcept;
  XgbCostModel& operator=(XgbCostModel&&) noexcept;

  // Trains a fresh model on `features` (one row per config) and `targets` (higher is better).
  // Throws EnvironmentError when XGBoost fails, std::invalid_argument for mismatched sizes.
  void Fit(const FeatureMatrix& features, const std::vector<float>& targets);
  // The same, rows in `groups` (std::invalid_argument when their sizes do not sum to the rows).
  void Fit(const FeatureMatrix& features, const std::vector<float>& targets, const FitGroups& groups);
  // One score per row, higher predicted better. Throws std::logic_error before the first Fit.
  std::vector<float> Predict(const FeatureMatrix& features) const;

  // How many tree nodes split on each of the first `features` features (XGBoost's "weight"
  // importance); zeros before the first Fit.
  std::vector<double> SplitCounts(size_t features) const;

  bool fitted() const { return booster_ != nullptr; }
  // Wall-clock seconds of every Fit so far, in order.
  const std::vector<double>& fit_seconds() const { return fit_seconds_; }

 private:
  XgbParams params_;
  std::unique_ptr<XgbBooster> booster_;
  std::vector<double> fit_seconds_;
};

}  // namespace tt
