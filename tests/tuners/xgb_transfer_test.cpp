// xgb-tl: XgbTuner in transfer mode, and the model pieces it stands on.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "model/knob_features.h"
#include "model/xgb_cost_model.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

ConfigSpace Space(int64_t x_extent) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", x_extent, 2));
  space.AddKnob(Knob::Split("tile_y", 64, 3));
  space.AddKnob(Knob::Discrete("unroll", {1, 2, 4, 8, 16}));
  space.AddKnob(Knob::Categorical("vec", {1, 2, 4, 8}));
  return space;
}

// One peak at inner tile_x 8, tile_y [*,4,4], unroll 4, vec 4, whatever the extent.
double Gflops(const KnobValues& v) {
  const auto sq = [](double x) { return x * x; };
  const KnobValue& x = *FindKnobValue(v, "tile_x");
  const KnobValue& y = *FindKnobValue(v, "tile_y");
  const double distance = sq(std::log2(x[1]) - 3) + sq(std::log2(y[1]) - 2) + sq(std::log2(y[2]) - 2) +
                          sq(std::log2((*FindKnobValue(v, "unroll"))[0]) - 2) +
                          ((*FindKnobValue(v, "vec"))[0] == 4 ? 0 : 1);
  return 100 * std::exp(-distance / 4);
}

KnobValues ValuesOf(const ConfigSpace& space, const Config& c) { return *ParseConfigKey(space.Key(c)); }

TEST(KnobFeatures, OfValuesReadsConfigsOfOtherExtents) {
  const ConfigSpace large = Space(256);
  const KnobFeatures features(large);
  Rng rng(1);
  for (int i = 0; i < 20; ++i) {
    const Config c = large.Random(rng);
    EXPECT_EQ(features.OfValues(ValuesOf(large, c)), features.Of(c));
  }
  const auto other = features.OfValues(*ParseConfigKey("tile_x=[2,32];tile_y=[1,8,8];unroll=3;vec=3"));
  ASSERT_TRUE(other);
  EXPECT_FLOAT_EQ((*other)[1], 5);  // log2 32
  EXPECT_FLOAT_EQ((*other)[5], 3);  // the discrete value as it is
  for (size_t i = 6; i < other->size(); ++i) EXPECT_EQ((*other)[i], 0) << "vec=3 is none of the choices";
  EXPECT_FALSE(features.OfValues(*ParseConfigKey("tile_x=[2,32];tile_y=[8,8];unroll=3;vec=4")));
  EXPECT_FALSE(features.OfValues(*ParseConfigKey("tile_y=[1,8,8];unroll=3;vec=4")));
}

TEST(XgbCostModel, SplitCountsNameTheFeaturesTheTreesUse) {
  FeatureMatrix m{64, 3, {}};
  std::vector<float> targets;
  for (int r = 0; r < 64; ++r) {
    m.values.insert(m.values.end(), {static_cast<float>(r % 8), 5.0f, static_cast<float>(r / 8)});
    targets.push_back(static_cast<float>(r % 8));  // only feature 0 matters; feature 1 is constant
  }
  XgbCostModel model({.objective = XgbObjective::kRegression});
  EXPECT_EQ(model.SplitCounts(3), (std::vector<double>{0, 0, 0}));
  model.Fit(m, targets);
  const auto counts = model.SplitCounts(3);
  EXPECT_GT(counts[0], 0);
  EXPECT_EQ(counts[1], 0);
  EXPECT_GT(counts[0], counts[2]);
}

// Pre-trained on another workload's trials, the first batch is already good; a cold xgb's is
// random until it has measured train_every configs. Primed with them, plain xgb learns from
// them too: a cross-task model of the other workloads plans its first batch.
TEST(XgbTransfer, FirstBatchLearnsFromOtherWorkloads) {
  const ConfigSpace recorded = Space(64), space = Space(128);
  WarmStart warm_start;
  warm_start.workload_features = {7, 6};
  Rng rng(3);
  for (int i = 0; i < 300; ++i) {
    const KnobValues v = ValuesOf(recorded, recorded.Random(rng));
    warm_start.transfer.push_back({v, {6, 6}, Gflops(v), 0.9});
  }
  const auto first_batch_mean = [&](const std::string& tuner_name, bool primed = true) {
    auto tuner = MakeTuner(tuner_name, space, 5, {});
    if (primed) tuner->Prime(warm_start);
    double sum = 0;
    const auto batch = tuner->NextBatch(16);
    for (const Config& c : batch) sum += Gflops(ValuesOf(space, c));
    return sum / static_cast<double>(batch.size());
  };
  const double transfer = first_batch_mean("xgb-tl"), cold = first_batch_mean("xgb", false);
  EXPECT_GT(transfer, 2 * cold) << transfer << " vs " << cold;
  EXPECT_GT(first_batch_mean("xgb"), 2 * cold);
}

TEST(XgbTransfer, OptionsOfTheTransferModeOnly) {
  const ConfigSpace space = Space(64);
  EXPECT_NO_THROW(MakeTuner("xgb-tl", space, 1, {{"transfer_keep", "64"}, {"importance_smoothing", "0.3"}}));
  EXPECT_THROW(MakeTuner("xgb", space, 1, {{"transfer_keep", "64"}}), UserError);
  EXPECT_THROW(MakeTuner("xgb-tl", space, 1, {{"importance_smoothing", "0"}}), UserError);
}

}  // namespace
}  // namespace tt
