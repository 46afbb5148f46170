// XgbTuner's plain-mode warm start: other devices' records of this task as prior training data.
#include <algorithm>
#include <map>

#include "tuners/warm_configs.h"  // RelativeToSourceBest
#include "tuners/xgb_tuner.h"

namespace tt {
namespace {

// Records kept per device: its best ones, then a random share of the rest (a brute-forced
// space has thousands; each fit stays cheap).
constexpr size_t kPriorBestRows = 128;
constexpr size_t kPriorRows = 512;

}  // namespace

void XgbTuner::PrimeFromRecords(const WarmStart& warm_start) {
  const std::vector<double> relative = RelativeToSourceBest(warm_start);
  std::map<int, std::vector<size_t>> by_source;
  std::map<int, double> similarity;
  // Other workloads' records: one task each (workload and source) for the cross-task model.
  std::map<std::pair<int, std::vector<float>>, TaskRecords> other_workloads;
  for (size_t i = 0; i < warm_start.transfer.size(); ++i) {
    const TransferSample& sample = warm_start.transfer[i];
    if (!options_.transfer && sample.workload_features != workload_features_) {
      TaskRecords& task = other_workloads[{sample.source, sample.workload_features}];
      task.workload_features = sample.workload_features;
      task.configs.push_back(sample.values);
      task.gflops.push_back(sample.gflops);
      continue;
    }
    by_source[warm_start.transfer[i].source].push_back(i);
    similarity[warm_start.transfer[i].source] =
        std::max(similarity[warm_start.transfer[i].source], warm_start.transfer[i].similarity);
  }
  prior_ = {0, features_.size() + (options_.transfer ? workload_features_.size() : 0), {}};
  prior_targets_.clear();
  prior_groups_ = {};
  cross_task_.reset();
  cross_task_planned_ = false;
  for (auto& [source, samples] : by_source) {
    if (!(similarity[source] > 0)) continue;
    std::stable_sort(samples.begin(), samples.end(), [&](size_t a, size_t b) { return relative[a] > relative[b]; });
    const auto rest = samples.begin() + static_cast<std::ptrdiff_t>(std::min(samples.size(), kPriorBestRows));
    std::vector<size_t> others(rest, samples.end());
    rng_.Shuffle(others);
    samples.erase(rest, samples.end());
    for (size_t i = 0; i < others.size() && samples.size() < kPriorRows; ++i) samples.push_back(others[i]);
    unsigned rows = 0;
    for (size_t i : samples) {
      const auto features = features_.OfValues(warm_start.transfer[i].values);
      if (!features) continue;  // recorded with another knob schema
      prior_.values.insert(prior_.values.end(), features->begin(), features->end());
      if (options_.transfer)  // xgb-tl's rows end with the workload's features, here this task's
        prior_.values.insert(prior_.values.end(), workload_features_.begin(), workload_features_.end());
      prior_targets_.push_back(static_cast<float>(relative[i]));
      ++prior_.rows, ++rows;
    }
    if (rows == 0) continue;
    prior_groups_.sizes.push_back(rows);
    prior_groups_.weights.push_back(static_cast<float>(similarity[source]));
  }
  if (other_workloads.empty()) return;
  std::vector<TaskRecords> tasks;
  for (auto& [key, task] : other_workloads) tasks.push_back(std::move(task));
  cross_task_.emplace(space_, rng_.Next());
  if (!cross_task_->Fit(tasks)) cross_task_.reset();
}

// This task's rows (already in `train`) are one group; each device's records another, weighed
// (times its similarity) as if it were plan_size rows of this task however many it has, its
// say shrinking as this task's own results arrive (halved after plan_size of them).
FitGroups XgbTuner::AppendPrior(FeatureMatrix& train, std::vector<float>& targets) const {
  FitGroups groups;
  if (train.rows > 0) groups.sizes.push_back(static_cast<unsigned>(train.rows));
  if (prior_.rows == 0) return groups;
  if (train.rows > 0) groups.weights.push_back(1);
  const float fade = static_cast<float>(options_.plan_size) / static_cast<float>(options_.plan_size + observed_.size());
  train.values.insert(train.values.end(), prior_.values.begin(), prior_.values.end());
  train.rows += prior_.rows;
  targets.insert(targets.end(), prior_targets_.begin(), prior_targets_.end());
  for (size_t g = 0; g < prior_groups_.sizes.size(); ++g) {
    groups.sizes.push_back(prior_groups_.sizes[g]);
    groups.weights.push_back(prior_groups_.weights[g] * fade * static_cast<float>(options_.plan_size) /
                             static_cast<float>(prior_groups_.sizes[g]));
  }
  return groups;
}

}  // namespace tt
