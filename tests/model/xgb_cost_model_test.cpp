#include "model/xgb_cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/errors.h"
#include "core/rng.h"

namespace tt {
namespace {

// A smooth function of 3 features in [0, 8), with one irrelevant feature.
float Truth(const float* x) { return -(x[0] - 3) * (x[0] - 3) + 2 * x[1] - 0.5f * x[2] * x[2] + 40; }

struct Sample {
  FeatureMatrix features;
  std::vector<float> truth;
};

Sample Draw(size_t rows, uint64_t seed) {
  Rng rng(seed);
  Sample s{{rows, 4, {}}, {}};
  for (size_t r = 0; r < rows; ++r) {
    for (int c = 0; c < 4; ++c) s.features.values.push_back(static_cast<float>(rng.Below(8)));
    s.truth.push_back(Truth(s.features.row(r)));
  }
  return s;
}

std::vector<double> Ranks(const std::vector<float>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < v.size();) {  // ties share their mean rank
    size_t j = i;
    while (j < v.size() && v[order[j]] == v[order[i]]) ++j;
    for (size_t k = i; k < j; ++k) ranks[order[k]] = 0.5 * (i + j - 1);
    i = j;
  }
  return ranks;
}

double Spearman(const std::vector<float>& a, const std::vector<float>& b) {
  const auto ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(ra.size()), mean = (n - 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

// Share of pairs with different truth that the predictions order the same way.
double PairsOrderedRight(const std::vector<float>& predicted, const std::vector<float>& truth) {
  size_t right = 0, pairs = 0;
  for (size_t i = 0; i < truth.size(); ++i)
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++pairs;
      right += (predicted[i] < predicted[j]) == (truth[i] < truth[j]);
    }
  return static_cast<double>(right) / static_cast<double>(pairs);
}

TEST(XgbCostModel, RegressionLearnsASmoothFunction) {
  const Sample train = Draw(300, 1), test = Draw(200, 2);
  XgbCostModel model({.objective = XgbObjective::kRegression});
  model.Fit(train.features, train.truth);
  EXPECT_GT(Spearman(model.Predict(test.features), test.truth), 0.8);
}

TEST(XgbCostModel, RankOrdersHeldOutPairs) {
  const Sample train = Draw(300, 3), test = Draw(200, 4);
  XgbCostModel model({.objective = XgbObjective::kRank});
  model.Fit(train.features, train.truth);
  EXPECT_GT(PairsOrderedRight(model.Predict(test.features), test.truth), 0.8);
}

TEST(XgbCostModel, SameDataSamePredictionsAndFitTimes) {
  const Sample train = Draw(100, 5), test = Draw(50, 6);
  XgbCostModel a, b;
  a.Fit(train.features, train.truth);
  b.Fit(train.features, train.truth);
  EXPECT_EQ(a.Predict(test.features), b.Predict(test.features));
  a.Fit(test.features, test.truth);  // a refit replaces the model
  ASSERT_EQ(a.fit_seconds().size(), 2u);
  EXPECT_GT(a.fit_seconds()[0], 0);
  EXPECT_NE(a.Predict(test.features), b.Predict(test.features));
}

TEST(XgbCostModel, MisuseIsReported) {
  XgbCostModel model;
  const Sample s = Draw(10, 7);
  EXPECT_FALSE(model.fitted());
  EXPECT_THROW(model.Predict(s.features), std::logic_error);
  EXPECT_THROW(model.Fit(s.features, std::vector<float>(9)), std::invalid_argument);
  model.Fit(s.features, s.truth);
  EXPECT_TRUE(model.fitted());
  EXPECT_TRUE(model.Predict(FeatureMatrix{0, 4, {}}).empty());
}

TEST(XgbCostModel, XgboostFailuresAreEnvironmentErrors) {
  XgbCostModel model({.max_depth = -1});
  const Sample s = Draw(10, 8);
  try {
    model.Fit(s.features, s.truth);
    ADD_FAILURE() << "no exception";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("max_depth"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(model.fitted());
}

}  // namespace
}  // namespace tt
