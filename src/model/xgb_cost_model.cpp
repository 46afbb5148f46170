#include "model/xgb_cost_model.h"

#include <xgboost/c_api.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace tt {
namespace {

void Check(int rc, const char* call) {
  if (rc != 0) throw EnvironmentError(std::string("XGBoost ") + call + " failed: " + XGBGetLastError());
}

// XGBoost logs to stderr by default; a tuning run's output is the CLI's alone.
void SilenceXgboostOnce() {
  static std::once_flag once;
  std::call_once(once, [] { Check(XGBSetGlobalConfig(R"({"verbosity": 0})"), "XGBSetGlobalConfig"); });
}

std::string Text(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

class DMatrix {
 public:
  explicit DMatrix(const FeatureMatrix& m) {
    if (m.values.size() != m.rows * m.cols)
      throw std::invalid_argument("feature matrix has the wrong number of values");
    Check(XGDMatrixCreateFromMat(m.values.data(), m.rows, m.cols, NAN, &handle_), "XGDMatrixCreateFromMat");
  }
  ~DMatrix() { XGDMatrixFree(handle_); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

const char* ObjectiveName(XgbObjective objective) {
  return objective == XgbObjective::kRank ? "rank:pairwise" : "reg:squarederror";
}

}  // namespace

// A booster set up with `params` (AutoTVM's tree parameters), caching `train`.
class XgbBooster {
 public:
  XgbBooster(const DMatrix& train, const XgbParams& params) {
    DMatrixHandle cache[] = {train.get()};
    Check(XGBoosterCreate(cache, 1, &handle_), "XGBoosterCreate");
    try {
      SetParams(params);
    } catch (...) {
      XGBoosterFree(handle_);  // no destructor runs for a constructor that throws
      throw;
    }
  }
  ~XgbBooster() { XGBoosterFree(handle_); }
  XgbBooster(const XgbBooster&) = delete;
  XgbBooster& operator=(const XgbBooster&) = delete;
  BoosterHandle get() const { return handle_; }

 private:
  void SetParams(const XgbParams& params) {
    Set("objective", ObjectiveName(params.objective));
    Set("verbosity", "0");
    Set("nthread", std::to_string(params.threads));
    Set("seed", std::to_string(params.seed % (uint64_t{1} << 31)));  // XGBoost reads a signed int
    Set("max_depth", std::to_string(params.max_depth));
    Set("eta", Text(params.eta));
    Set("gamma", Text(params.gamma));
    Set("min_child_weight", Text(params.min_child_weight));
    Set("subsample", "1");
    Set("lambda", Text(params.lambda));
    Set("alpha", Text(params.alpha));
  }
  void Set(const char* name, const std::string& value) {
    Check(XGBoosterSetParam(handle_, name, value.c_str()), "XGBoosterSetParam");
  }

  BoosterHandle handle_ = nullptr;
};

XgbCostModel::XgbCostModel(XgbParams params) : params_(params) { SilenceXgboostOnce(); }
XgbCostModel::~XgbCostModel() = default;
XgbCostModel::XgbCostModel(XgbCostModel&&) noexcept = default;
XgbCostModel& XgbCostModel::operator=(XgbCostModel&&) noexcept = default;

void XgbCostModel::Fit(const FeatureMatrix& features, const std::vector<float>& targets) {
  // All configs of a task form one query group: every pair of them is compared.
  Fit(features, targets, FitGroups{{static_cast<unsigned>(features.rows)}, {}});
}

void XgbCostModel::Fit(const FeatureMatrix& features, const std::vector<float>& targets, const FitGroups& groups) {
  if (features.rows == 0 || targets.size() != features.rows)
    throw std::invalid_argument("Fit needs one target per feature row, and at least one row");
  size_t grouped = 0;
  for (unsigned size : groups.sizes) grouped += size;
  if (grouped != features.rows || (!groups.weights.empty() && groups.weights.size() != groups.sizes.size()))
    throw std::invalid_argument("Fit's groups do not cover the rows, or have not one weight each");
  const auto start = std::chrono::steady_clock::now();
  DMatrix train(features);
  Check(XGDMatrixSetFloatInfo(train.get(), "label", targets.data(), targets.size()), "XGDMatrixSetFloatInfo");
  const bool rank = params_.objective == XgbObjective::kRank;
  if (rank)
    Check(XGDMatrixSetUIntInfo(train.get(), "group", groups.sizes.data(), groups.sizes.size()), "XGDMatrixSetUIntInfo");
  if (!groups.weights.empty()) {
    std::vector<float> weights = groups.weights;  // per group for ranking, per row for regression
    if (!rank) {
      weights.clear();
      for (size_t g = 0; g < groups.sizes.size(); ++g)
        weights.insert(weights.end(), groups.sizes[g], groups.weights[g]);
    }
    Check(XGDMatrixSetFloatInfo(train.get(), "weight", weights.data(), weights.size()), "XGDMatrixSetFloatInfo");
  }
  auto booster = std::make_unique<XgbBooster>(train, params_);
  for (int round = 0; round < params_.rounds; ++round)
    Check(XGBoosterUpdateOneIter(booster->get(), round, train.get()), "XGBoosterUpdateOneIter");
  booster_ = std::move(booster);
  fit_seconds_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::vector<float> XgbCostModel::Predict(const FeatureMatrix& features) const {
  if (!booster_) throw std::logic_error("XgbCostModel::Predict before Fit");
  if (features.rows == 0) return {};
  DMatrix data(features);
  const char* config =
      R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dims = 0;
  const float* scores = nullptr;
  Check(XGBoosterPredictFromDMatrix(booster_->get(), data.get(), config, &shape, &dims, &scores),
        "XGBoosterPredictFromDMatrix");
  return std::vector<float>(scores, scores + features.rows);
}

// The text dump writes each split as "[f<index><threshold]".
std::vector<double> XgbCostModel::SplitCounts(size_t features) const {
  std::vector<double> counts(features, 0);
  if (!booster_) return counts;
  bst_ulong trees = 0;
  const char** dumps = nullptr;
  Check(XGBoosterDumpModel(booster_->get(), "", 0, &trees, &dumps), "XGBoosterDumpModel");
  for (bst_ulong t = 0; t < trees; ++t) {
    const std::string tree = dumps[t];
    for (size_t at = tree.find("[f"); at != std::string::npos; at = tree.find("[f", at + 2)) {
      const size_t index = std::strtoul(tree.c_str() + at + 2, nullptr, 10);
      if (index < features) ++counts[index];
    }
  }
  return counts;
}

}  // namespace tt
