#include "model/cross_task_model.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tt {

CrossTaskModel::CrossTaskModel(const ConfigSpace& space, uint64_t seed)
    : features_(space), model_(XgbParams{.objective = XgbObjective::kRank, .seed = seed}) {}

bool CrossTaskModel::Fit(const std::vector<TaskRecords>& tasks) {
  if (tasks.empty()) return false;
  const size_t workload_cols = tasks.front().workload_features.size();
  FeatureMatrix train{0, features_.size() + workload_cols, {}};
  std::vector<float> targets;
  FitGroups groups;
  for (const TaskRecords& task : tasks) {
    if (task.workload_features.size() != workload_cols || task.configs.size() != task.gflops.size()) continue;
    const double best = task.gflops.empty() ? 0 : *std::max_element(task.gflops.begin(), task.gflops.end());
    if (!(best > 0)) continue;  // nothing to rank within it
    unsigned rows = 0;
    for (size_t i = 0; i < task.configs.size(); ++i) {
      const auto knobs = features_.OfValues(task.configs[i]);
      if (!knobs) continue;
      train.values.insert(train.values.end(), knobs->begin(), knobs->end());
      train.values.insert(train.values.end(), task.workload_features.begin(), task.workload_features.end());
      targets.push_back(static_cast<float>(std::max(task.gflops[i], 0.0) / best));
      ++rows;
    }
    train.rows += rows;
    if (rows > 0) groups.sizes.push_back(rows);
  }
  if (train.rows == 0) return false;
  model_.Fit(train, targets, groups);
  workload_cols_ = workload_cols;
  return true;
}

std::vector<float> CrossTaskModel::Score(const std::vector<float>& workload_features,
                                         const std::vector<KnobValues>& configs) const {
  std::vector<std::optional<std::vector<float>>> knobs;
  for (const KnobValues& values : configs) knobs.push_back(features_.OfValues(values));
  return Predict(workload_features, knobs);
}

std::vector<float> CrossTaskModel::Score(const std::vector<float>& workload_features,
                                         const std::vector<Config>& configs) const {
  std::vector<std::optional<std::vector<float>>> knobs;
  for (const Config& config : configs) knobs.push_back(features_.Of(config));
  return Predict(workload_features, knobs);
}

std::vector<float> CrossTaskModel::Predict(const std::vector<float>& workload_features,
                                           const std::vector<std::optional<std::vector<float>>>& knobs) const {
  if (!model_.fitted()) throw std::logic_error("CrossTaskModel::Score before a successful Fit");
  if (workload_features.size() != workload_cols_)
    throw std::invalid_argument("CrossTaskModel::Score: workload features of another length than the training's");
  FeatureMatrix rows{knobs.size(), features_.size() + workload_cols_, {}};
  for (const auto& k : knobs) {
    if (k)
      rows.values.insert(rows.values.end(), k->begin(), k->end());
    else
      rows.values.insert(rows.values.end(), features_.size(), 0.0f);
    rows.values.insert(rows.values.end(), workload_features.begin(), workload_features.end());
  }
  std::vector<float> scores = model_.Predict(rows);
  for (size_t i = 0; i < scores.size(); ++i)
    if (!knobs[i]) scores[i] = std::numeric_limits<float>::lowest();
  return scores;
}

}  // namespace tt
