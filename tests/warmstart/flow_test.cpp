// The flows of --tuner auto and the candidate ranking, on a real database with made-up trials.
#include "warmstart/flow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "space/knob_schema.h"

namespace tt {
namespace {

namespace fs = std::filesystem;

ConfigSpace GemmLike(int64_t m, int64_t n, int64_t k) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", m, 3));
  space.AddKnob(Knob::Split("tile_y", n, 3));
  space.AddKnob(Knob::Split("tile_k", k, 2));
  space.AddKnob(Knob::Discrete("vec", {1, 2, 4}));
  space.AddConstraint([](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    if (s.Value(c, "tile_x")[1] * s.Value(c, "tile_y")[1] > 64) return "work group too large";
    return std::nullopt;
  });
  return space;
}

Workload Gemm(int64_t m, int64_t n, int64_t k) { return {"gemm", {{"m", m}, {"n", n}, {"k", k}}}; }

DeviceInfo Device() {
  DeviceInfo d;
  d.platform = "p";
  d.name = "cpu";
  d.driver_version = "1";
  d.type = "cpu";
  d.max_work_group_size = 256;
  return d;
}

// GFLOPS made up from the config: larger inner tiles are faster.
double MadeUpGflops(const ConfigSpace& space, const Config& c) {
  return 1.0 + static_cast<double>(space.Value(c, "tile_x")[1] * space.Value(c, "tile_y")[2]) +
         static_cast<double>(space.Scalar(c, "vec"));
}

class Flow : public ::testing::Test {
 protected:
  Flow() {
    dir_ = fs::temp_directory_path() / ("tt_flow_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    store_ = SqliteHistoryStore::Open((dir_ / "h.db").string());
  }
  ~Flow() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  TemplateRef Ref(const ConfigSpace& space) const { return {"gemm_like", "gemm", "src-1", KnobSchema(space)}; }

  // Records `count` valid configs of `workload` (every 7th a failure).
  std::vector<std::string> Record(const Workload& workload, const ConfigSpace& space, int count) {
    const TaskIds ids = store_->EnsureTask(workload, 1e6, Ref(space), Device());
    const int64_t run = store_->BeginRun(ids, {"random", "", 1, "test", count});
    std::vector<TrialRecord> trials;
    std::vector<std::string> keys;
    Rng rng(static_cast<uint64_t>(workload.Dim("m")));
    while (static_cast<int>(trials.size()) < count) {
      const Config c = space.Random(rng);
      if (!space.IsValid(c) || std::find(keys.begin(), keys.end(), space.Key(c)) != keys.end()) continue;
      TrialRecord r;
      r.config_key = space.Key(c);
      r.config_json = space.ToJson(c);
      r.result = trials.size() % 7 == 3 ? MeasureResult::Failure(MeasureStatus::kCompileError, "x")
                                        : MeasureResult::Success({1e6 / (MadeUpGflops(space, c) * 1e9)}, 1e6, 0);
      trials.push_back(r);
      keys.push_back(r.config_key);
    }
    store_->RecordBatch(run, ids, trials);
    return keys;
  }

  // Every config of `space` (a small one) for `workload`, the i-th in index order at
  // `gflops` * (i + 1).
  void RecordEveryConfig(const Workload& workload, const ConfigSpace& space, double gflops) {
    const TaskIds ids = store_->EnsureTask(workload, 1e6, Ref(space), Device());
    const int64_t run = store_->BeginRun(ids, {"grid", "", 1, "test", static_cast<int64_t>(space.Size())});
    std::vector<TrialRecord> trials;
    for (size_t i = 0; i < space.Size(); ++i) {
      const Config c = space.FromIndex(i);
      TrialRecord r;
      r.config_key = space.Key(c);
      r.config_json = space.ToJson(c);
      r.result = MeasureResult::Success({1e6 / (gflops * 1e9 * static_cast<double>(i + 1))}, 1e6, 0);
      trials.push_back(r);
    }
    store_->RecordBatch(run, ids, trials);
  }

  FlowChoice Choose(const Workload& workload, const ConfigSpace& space, FlowOptions options = {}) {
    const TaskIds ids = store_->EnsureTask(workload, 1e6, Ref(space), Device());
    return ChooseFlow(*store_, {workload, Ref(space), ids, &space}, 1, options);
  }

  fs::path dir_;
  std::unique_ptr<SqliteHistoryStore> store_;
};

TEST_F(Flow, NoHistoryTakesXgbTlAndSaysSo) {
  const ConfigSpace space = GemmLike(64, 64, 32);
  const FlowChoice choice = Choose(Gemm(64, 64, 32), space);
  EXPECT_EQ(choice.flow, "xgb-tl");
  EXPECT_EQ(choice.primed, 0u);
  EXPECT_NE(choice.explanation.find("no recorded workload"), std::string::npos) << choice.explanation;
  EXPECT_EQ(choice.made->NextBatch(8).size(), 8u);
}

TEST_F(Flow, SimilarWorkloadTakesGgaWithAdaptedConfigsFirst) {
  const ConfigSpace recorded_space = GemmLike(64, 64, 32);
  Record(Gemm(64, 64, 32), recorded_space, 40);
  const ConfigSpace space = GemmLike(96, 64, 32);
  const FlowChoice choice = Choose(Gemm(96, 64, 32), space);
  ASSERT_EQ(choice.flow, "gga") << choice.explanation;
  EXPECT_NE(choice.explanation.find("gemm:m=64,n=64,k=32"), std::string::npos) << choice.explanation;
  EXPECT_NE(choice.explanation.find("score 0.95"), std::string::npos) << choice.explanation;  // (6/7 + 1 + 1) / 3
  ASSERT_GT(choice.primed, 0u);

  // The first batch is the best-ranked records, adapted: the best of them leads.
  const auto search = FindCandidates(*store_, {store_->TemplateVersions("gemm_like", KnobSchema(space), "src-1"), 0},
                                     Gemm(96, 64, 32), TargetExtentsOf(space));
  ASSERT_FALSE(search.records.empty());
  for (size_t i = 1; i < search.records.size(); ++i) EXPECT_GE(search.records[i - 1].metric, search.records[i].metric);
  const auto first_batch = choice.made->NextBatch(16);
  ASSERT_FALSE(first_batch.empty());
  const auto best_adapted = AdaptConfig(space, search.records.front().values);
  ASSERT_TRUE(best_adapted && !best_adapted->why_invalid);
  EXPECT_EQ(first_batch.front(), best_adapted->config);
}

// 63 and 61 share few divisors with 64, but a space that also splits them rounded up to 64
// holds the recorded tiles as they are: the round neighbour's history is a full match.
TEST_F(Flow, OddSizesWhoseSplitsRoundUpToARecordedExtentTakeItsConfigsWhole) {
  Record(Gemm(64, 64, 32), GemmLike(64, 64, 32), 40);
  ConfigSpace odd;
  odd.AddKnob(Knob::SplitWithTail("tile_x", 63, 3, {64}));
  odd.AddKnob(Knob::SplitWithTail("tile_y", 61, 3, {64}));
  odd.AddKnob(Knob::Split("tile_k", 32, 2));
  odd.AddKnob(Knob::Discrete("vec", {1, 2, 4}));
  ASSERT_EQ(KnobSchema(odd), KnobSchema(GemmLike(64, 64, 32)));
  const FlowChoice choice = Choose(Gemm(63, 61, 32), odd);
  ASSERT_EQ(choice.flow, "gga") << choice.explanation;
  EXPECT_NE(choice.explanation.find("score 1.00"), std::string::npos) << choice.explanation;

  const auto search = FindCandidates(*store_, {store_->TemplateVersions("gemm_like", KnobSchema(odd), "src-1"), 0},
                                     Gemm(63, 61, 32), TargetExtentsOf(odd));
  ASSERT_FALSE(search.records.empty());
  EXPECT_EQ(choice.made->NextBatch(16).front(), *odd.FromKey(search.records.front().config_key));
}

TEST_F(Flow, DissimilarHistoryTakesXgbTlWithTransferRecords) {
  Record(Gemm(64, 64, 32), GemmLike(64, 64, 32), 30);
  const ConfigSpace space = GemmLike(7, 5, 3);
  const FlowChoice choice = Choose(Gemm(7, 5, 3), space);
  EXPECT_EQ(choice.flow, "xgb-tl") << choice.explanation;
  EXPECT_GT(choice.primed, 20u);  // the ok records of the other workload
  EXPECT_NE(choice.explanation.find("below threshold"), std::string::npos) << choice.explanation;
  // A threshold of 0 takes gga whatever the score.
  FlowOptions any_score;
  any_score.threshold = 0;
  EXPECT_EQ(Choose(Gemm(7, 5, 3), space, any_score).flow, "gga");
}

// A template whose knobs split no extent (tile counts, vector widths): the match score compares
// the workloads' dimensions instead, so a similar workload still leads and gga is taken.
TEST_F(Flow, WithoutSplitKnobsTheWorkloadDimensionsAreMatched) {
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("vec", {1, 2, 4}));
  space.AddKnob(Knob::Discrete("tile", {1, 2, 4, 8}));
  RecordEveryConfig(Gemm(7, 5, 3), space, 1);
  RecordEveryConfig(Gemm(64, 64, 32), space, 1);
  const auto search = FindCandidates(*store_, {store_->TemplateVersions("gemm_like", KnobSchema(space), "src-1"), 0},
                                     Gemm(64, 64, 48), TargetExtentsOf(space));
  EXPECT_EQ(search.best_match.Key(), Gemm(64, 64, 32).Key());
  EXPECT_NEAR(search.best_match_score, (1.0 + 1.0 + 5.0 / 6.0) / 3.0, 1e-9);  // k: 5 of 32's 6 divisors divide 48
  ASSERT_FALSE(search.records.empty());
  EXPECT_EQ(search.records.front().workload.Key(), Gemm(64, 64, 32).Key());
  EXPECT_EQ(Choose(Gemm(64, 64, 48), space).flow, "gga");
}

// A 1x1 stride-2 projection of new sizes: the recorded projection's configs come first, not
// those of the 3x3 layer with the same stride whose GFLOPS are four times higher (another loop
// nest: its speed says nothing of how a config does on a memory-bound 1x1 window).
TEST_F(Flow, ARecordedWorkloadWithTheSameWindowLeadsOneWithAnother) {
  ConfigSpace space;
  space.AddKnob(Knob::Discrete("vec", {1, 2, 4}));
  space.AddKnob(Knob::Discrete("tile", {1, 2, 4, 8}));
  const auto conv = [](int64_t ci, int64_t h, int64_t co, int64_t k) {
    return Workload{"conv2d",
                    {{"n", 1},
                     {"ci", ci},
                     {"h", h},
                     {"w", h},
                     {"co", co},
                     {"kh", k},
                     {"kw", k},
                     {"stride", 2},
                     {"pad", k / 2},
                     {"dilation", 1}}};
  };
  RecordEveryConfig(conv(64, 56, 128, 3), space, 160);
  RecordEveryConfig(conv(64, 56, 128, 1), space, 40);
  const Workload projection = conv(96, 40, 192, 1);
  const auto search = FindCandidates(*store_, {store_->TemplateVersions("gemm_like", KnobSchema(space), "src-1"), 0},
                                     projection, TargetExtentsOf(space));
  EXPECT_EQ(search.best_match.Key(), conv(64, 56, 128, 1).Key());
  ASSERT_FALSE(search.records.empty());
  EXPECT_EQ(search.records.front().workload.Key(), conv(64, 56, 128, 1).Key());
  // The 3x3 layer's records still rank, at half its match score.
  const auto other = std::find_if(search.records.begin(), search.records.end(),
                                  [&](const RankedRecord& r) { return r.workload == conv(64, 56, 128, 3); });
  ASSERT_NE(other, search.records.end());
  EXPECT_LT(other->match_score, search.best_match_score / 2);
}

TEST_F(Flow, TheFlowsTunerGetsTheOptionsPassedOnToIt) {
  const ConfigSpace space = GemmLike(7, 5, 3);
  FlowOptions bad_objective;
  bad_objective.flow_tuner_options["xgb-tl"]["objective"] = "hinge";
  EXPECT_THROW(Choose(Gemm(7, 5, 3), space, bad_objective), UserError);  // reached xgb-tl: it refuses
  FlowOptions gga_only = bad_objective;
  gga_only.threshold = 0;  // gga is taken: xgb-tl's options are not its business
  EXPECT_EQ(Choose(Gemm(7, 5, 3), space, gga_only).flow, "gga");
}

TEST_F(Flow, UnfilteredXgbTlTrainsOnEveryOkRecord) {
  Record(Gemm(64, 64, 32), GemmLike(64, 64, 32), 140);  // 120 ok: more than a workload's filtered share
  const ConfigSpace space = GemmLike(7, 5, 3);
  const FlowChoice filtered = Choose(Gemm(7, 5, 3), space);
  FlowOptions every_record;
  every_record.filter = false;
  const FlowChoice unfiltered = Choose(Gemm(7, 5, 3), space, every_record);
  ASSERT_EQ(unfiltered.flow, "xgb-tl");
  EXPECT_EQ(filtered.primed, static_cast<size_t>(CandidateOptions{}.per_workload));
  EXPECT_EQ(unfiltered.primed, 120u);
  EXPECT_NE(unfiltered.explanation.find("filter=0"), std::string::npos) << unfiltered.explanation;
  EXPECT_EQ(unfiltered.made->NextBatch(8).size(), 8u);
}

TEST_F(Flow, ExactHistoryIsSeededAndNeverProposedAgain) {
  const ConfigSpace space = GemmLike(64, 64, 32);
  const auto recorded = Record(Gemm(64, 64, 32), space, 25);
  FlowChoice choice = Choose(Gemm(64, 64, 32), space);
  EXPECT_EQ(choice.flow, "exact");
  EXPECT_EQ(choice.seeded, 25u);
  const std::set<std::string> seen(recorded.begin(), recorded.end());
  for (int batch = 0; batch < 4; ++batch)
    for (const Config& c : choice.made->NextBatch(16)) EXPECT_FALSE(seen.count(space.Key(c))) << space.Key(c);
}

// --retry-failed with --tuner auto: a config that timed out twice counts as hanging and is
// seeded (never proposed again), unless transient failures are to be retried.
TEST_F(Flow, RetryingTransientFailuresLeavesThemOutOfTheExactHistory) {
  const ConfigSpace space = GemmLike(64, 64, 32);
  Record(Gemm(64, 64, 32), space, 10);
  const TaskIds ids = store_->EnsureTask(Gemm(64, 64, 32), 1e6, Ref(space), Device());
  Rng rng(99);
  Config hanging = space.Random(rng);
  while (!space.IsValid(hanging)) hanging = space.Random(rng);
  const int64_t run = store_->BeginRun(ids, {"random", "", 1, "test", 2});
  for (int i = 0; i < 2; ++i) {
    TrialRecord r;
    r.config_key = space.Key(hanging);
    r.config_json = space.ToJson(hanging);
    r.result = MeasureResult::Failure(MeasureStatus::kTimeout, "no result within 10 s");
    r.result.transient = true;
    store_->RecordBatch(run, ids, {r});
  }
  const auto seeded = [&](bool retry) {
    return ChooseFlow(*store_, {Gemm(64, 64, 32), Ref(space), ids, &space, retry}, 1).seeded;
  };
  const size_t kept = seeded(false), retried = seeded(true);
  EXPECT_EQ(kept, retried + 1);
  EXPECT_EQ(TaskHistory(*store_, ids, space, true).size(), retried);
}

TEST_F(Flow, OptionsAreChecked) {
  EXPECT_DOUBLE_EQ(FlowOptions::Parse({{"threshold", "0.3"}}).threshold, 0.3);
  EXPECT_TRUE(FlowOptions::Parse({{"any_device", "1"}}).any_device);
  EXPECT_FALSE(FlowOptions::Parse({{"filter", "0"}}).filter);
  EXPECT_THROW(FlowOptions::Parse({{"filter", "2"}}), UserError);
  EXPECT_THROW(FlowOptions::Parse({{"threshold", "2"}}), UserError);
  EXPECT_THROW(FlowOptions::Parse({{"pop_size", "8"}}), UserError);
  // The flow's tuner takes options passed on by its name.
  const FlowOptions passing = FlowOptions::Parse({{"gga.pop_size", "8"}, {"xgb-tl.plan_size", "4"}, {"omega", "1"}});
  EXPECT_EQ(passing.flow_tuner_options.at("gga").at("pop_size"), "8");
  EXPECT_EQ(passing.flow_tuner_options.at("xgb-tl").at("plan_size"), "4");
  EXPECT_DOUBLE_EQ(passing.omega, 1);
  EXPECT_THROW(FlowOptions::Parse({{"ga.pop_size", "8"}}), UserError);
}

}  // namespace
}  // namespace tt
