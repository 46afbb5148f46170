// XgbTuner's transfer mode (xgb-tl): history of other workloads, filtered before every fit.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "tuners/warm_configs.h"
#include "tuners/xgb_tuner.h"

namespace tt {
namespace {

std::vector<double> Normalised(std::vector<double> counts) {
  const double sum = std::accumulate(counts.begin(), counts.end(), 0.0);
  if (sum > 0)
    for (double& c : counts) c /= sum;
  return counts;
}

}  // namespace

void XgbTuner::Prime(const WarmStart& warm_start) {
  warm_walkers_ = BestWarmConfigs(space_, warm_start, std::max<size_t>(1, options_.sa_walkers / 2));
  if (!options_.transfer) {
    workload_features_ = warm_start.workload_features;
    PrimeFromRecords(warm_start);
    return;
  }
  workload_features_ = warm_start.workload_features;
  const size_t cols = features_.size() + workload_features_.size();
  transfer_ = {0, cols, {}};
  // Records of this very workload (other devices') are prior data, as for xgb; the filter is
  // for other workloads' records.
  WarmStart same_workload;
  for (const TransferSample& sample : warm_start.transfer)
    if (sample.workload_features == workload_features_) same_workload.transfer.push_back(sample);
  PrimeFromRecords(same_workload);
  for (const TransferSample& sample : warm_start.transfer) {
    if (sample.workload_features == workload_features_) continue;
    const auto config_features = features_.OfValues(sample.values);
    if (!config_features || sample.workload_features.size() != workload_features_.size()) continue;
    transfer_.values.insert(transfer_.values.end(), config_features->begin(), config_features->end());
    transfer_.values.insert(transfer_.values.end(), sample.workload_features.begin(), sample.workload_features.end());
    ++transfer_.rows;
    transfer_gflops_.push_back(static_cast<float>(std::max(sample.gflops, 0.0)));
    transfer_similarity_.push_back(sample.similarity);
  }
}

FeatureMatrix XgbTuner::Features(const std::vector<Config>& configs) const {
  FeatureMatrix own = features_.Matrix(configs);
  if (!options_.transfer) return own;
  FeatureMatrix joined{own.rows, own.cols + workload_features_.size(), {}};
  joined.values.reserve(joined.rows * joined.cols);
  for (size_t r = 0; r < own.rows; ++r) {
    joined.values.insert(joined.values.end(), own.row(r), own.row(r) + own.cols);
    joined.values.insert(joined.values.end(), workload_features_.begin(), workload_features_.end());
  }
  return joined;
}

// The transfer_keep history rows closest to this task: exp(-importance-weighted L1 distance
// to the best config measured so far, with this workload's features) times the match score.
// Before this task has a measurement, config features do not count, only workload features;
// before any model, every feature weighs the same.
std::vector<size_t> XgbTuner::FilterTransfer() {
  if (transfer_.rows == 0) return {};
  const size_t config_cols = features_.size();
  std::vector<float> target(transfer_.cols, 0);
  const auto best = std::max_element(fitness_.begin(), fitness_.end());
  const bool have_best = best != fitness_.end() && *best > 0;
  if (have_best) target = Features({observed_[static_cast<size_t>(best - fitness_.begin())]}).values;
  std::copy(workload_features_.begin(), workload_features_.end(),
            target.begin() + static_cast<std::ptrdiff_t>(config_cols));
  const std::vector<double> weights =
      importance_.empty() ? std::vector<double>(transfer_.cols, 1.0 / static_cast<double>(transfer_.cols))
                          : importance_;

  std::vector<std::pair<double, size_t>> scored;
  for (size_t r = 0; r < transfer_.rows; ++r) {
    double distance = 0;
    for (size_t j = have_best ? 0 : config_cols; j < transfer_.cols; ++j)
      distance += weights[j] * std::abs(transfer_.row(r)[j] - target[j]);
    scored.push_back({std::exp(-distance) * transfer_similarity_[r], r});
  }
  const size_t keep = std::min(options_.transfer_keep, scored.size());
  std::partial_sort(
      scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep), scored.end(),
      [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  std::vector<size_t> rows;
  for (size_t i = 0; i < keep; ++i) rows.push_back(scored[i].second);
  return rows;
}

// A moving average of the split counts, so that one fit's quirks do not decide the filter.
void XgbTuner::UpdateImportance() {
  if (!options_.transfer) return;
  const std::vector<double> latest = Normalised(model_.SplitCounts(features_.size() + workload_features_.size()));
  if (importance_.empty()) {
    importance_ = latest;
    return;
  }
  const double a = options_.importance_smoothing;
  for (size_t j = 0; j < importance_.size(); ++j) importance_[j] = (1 - a) * importance_[j] + a * latest[j];
}

}  // namespace tt
