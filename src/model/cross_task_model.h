#pragma once
// One cost model across the tasks of a kernel template on one device (the TenSet / TLP idea
// on our own history): XGBoost ranking on the knob features of each recorded config joined
// with its workload's features, trained on every task's records, each task a ranking group of
// its own (throughput against that task's best: workloads of other sizes never compared with
// each other). It ranks configs of a task with few or no records of its own.
#include <cstdint>
#include <optional>
#include <vector>

#include "model/knob_features.h"
#include "model/xgb_cost_model.h"

namespace tt {

// The records of one task: configs as recorded (knob values of its workload's extents).
struct TaskRecords {
  std::vector<float> workload_features;
  std::vector<KnobValues> configs;
  std::vector<double> gflops;  // one per config; 0 for a failure
};

class CrossTaskModel {
 public:
  // `space`: the template's space for any workload (its knobs; the features of values recorded
  // for other workloads come from it). Must outlive the model.
  explicit CrossTaskModel(const ConfigSpace& space, uint64_t seed = 0);

  // Trains on every task with a successful record; false when none has one (nothing learnt).
  // Records whose knobs do not fit the space, and tasks whose workload features have another
  // length than the first task's, are left out.
  bool Fit(const std::vector<TaskRecords>& tasks);
  bool fitted() const { return model_.fitted(); }

  // Scores (higher predicted faster) of configs of the workload with these features. Throws
  // std::logic_error before a successful Fit. A config whose knobs do not fit scores lowest.
  std::vector<float> Score(const std::vector<float>& workload_features, const std::vector<KnobValues>& configs) const;
  std::vector<float> Score(const std::vector<float>& workload_features, const std::vector<Config>& configs) const;

 private:
  std::vector<float> Predict(const std::vector<float>& workload_features,
                             const std::vector<std::optional<std::vector<float>>>& knobs) const;

  KnobFeatures features_;
  XgbCostModel model_;
  size_t workload_cols_ = 0;
};

}  // namespace tt
