#include "tuners/xgb_tuner.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "tuners/fitness.h"

namespace tt {
namespace {

XgbParams ModelParams(const XgbTunerOptions& options, uint64_t seed) {
  XgbParams params;
  params.objective = options.objective == "reg" ? XgbObjective::kRegression : XgbObjective::kRank;
  params.seed = seed;
  return params;
}

}  // namespace

const OptionTable<XgbTunerOptions>& XgbTunerOptions::Table(bool transfer) {
  using O = XgbTunerOptions;
  static const OptionTable<O> own{
      {"objective", &O::objective, "the model's loss: pairwise ranking or squared error", {}, {"rank", "reg"}},
      {"plan_size", &O::plan_size, "configs planned by simulated annealing per fit", kAtLeastOne},
      {"train_every", &O::train_every, "observations between fits (0: plan_size); the first fit waits for as many"},
      {"epsilon", &O::epsilon, "share of proposals drawn at random instead of from the plan", kProbability},
      {"sa_walkers", &O::sa_walkers, "simulated-annealing walkers", kAtLeastOne},
      {"sa_steps", &O::sa_steps, "simulated-annealing steps at most"},
      {"sa_early_stop", &O::sa_early_stop, "steps without a change to the plan that end the annealing", kAtLeastOne},
  };
  static const OptionTable<O> with_transfer = [] {
    OptionTable<O> table = own;
    table.push_back({"transfer_keep", &O::transfer_keep, "history rows kept by the filter for each fit"});
    table.push_back({"importance_smoothing", &O::importance_smoothing,
                     "weight of the newest split counts in the moving average of feature importance",
                     OptionRange{0, 1, true, false}});
    return table;
  }();
  return transfer ? with_transfer : own;
}

void XgbTunerOptions::Validate() const { CheckOptionRanges(transfer ? "xgb-tl" : "xgb", Table(transfer), *this); }

XgbTunerOptions XgbTunerOptions::Parse(const TunerOptionMap& options, bool transfer) {
  XgbTunerOptions base;
  base.transfer = transfer;
  return ParseOptionTable(transfer ? "xgb-tl" : "xgb", Table(transfer), options, base);
}

XgbTuner::XgbTuner(const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options)
    : XgbTuner(space, seed, XgbTunerOptions::Parse(options)) {}

XgbTuner::XgbTuner(const ConfigSpace& space, uint64_t seed, XgbTunerOptions options)
    : space_(space),
      options_(options),
      rng_(seed),
      unseen_(space),
      features_(space),
      model_(ModelParams(options, seed)) {
  options_.Validate();
  if (options_.train_every == 0) options_.train_every = options_.plan_size;
}

void XgbTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) {
    if (!InSpace(space_, m.config)) continue;
    unseen_.MarkSeen(m.config);
    observed_.push_back(m.config);
    fitness_.push_back(static_cast<float>(Fitness(m)));
    ++new_since_fit_;
  }
}

std::vector<Config> XgbTuner::NextBatch(size_t max_size) {
  if (ShouldRetrain())
    Replan();
  else if (!model_.fitted() && cross_task_ && !cross_task_planned_)
    PlanFromCrossTask();
  std::vector<Config> batch;
  while (batch.size() < max_size) {
    auto config = NextCandidate();
    if (!config) break;  // the space is exhausted
    unseen_.MarkSeen(*config);
    batch.push_back(std::move(*config));
  }
  return batch;
}

// A model of nothing but failures (all fitness 0) cannot rank anything: keep exploring. With
// history to transfer from, the first model needs no measurement of this task.
bool XgbTuner::ShouldRetrain() const {
  const auto positive = [](float f) { return f > 0; };
  if (std::none_of(fitness_.begin(), fitness_.end(), positive) &&
      std::none_of(transfer_gflops_.begin(), transfer_gflops_.end(), positive) &&
      std::none_of(prior_targets_.begin(), prior_targets_.end(), positive))
    return false;
  // Primed with other devices' records, the model learns how this device differs four times
  // as often while those records still have most of the say.
  const size_t every = prior_.rows > 0 && observed_.size() < options_.plan_size
                           ? std::max<size_t>(1, options_.train_every / 4)
                           : options_.train_every;
  return new_since_fit_ >= every || (!model_.fitted() && (transfer_.rows > 0 || prior_.rows > 0));
}

void XgbTuner::Replan() {
  // AutoTVM normalises by the best so far; regression then learns values in [0, 1].
  FeatureMatrix train = Features(observed_);
  std::vector<float> targets = fitness_;
  for (const size_t row : FilterTransfer()) {
    train.values.insert(train.values.end(), transfer_.row(row), transfer_.row(row) + transfer_.cols);
    targets.push_back(transfer_gflops_[row]);
    ++train.rows;
  }
  const float best = targets.empty() ? 0 : *std::max_element(targets.begin(), targets.end());
  new_since_fit_ = 0;
  if (best > 0)
    for (float& t : targets) t /= best;
  else if (prior_.rows == 0)
    return;  // the filter kept failures only
  const FitGroups groups = AppendPrior(train, targets);
  model_.Fit(train, targets, groups);
  UpdateImportance();

  Plan([this](const std::vector<Config>& configs) { return model_.Predict(Features(configs)); });
}

// The cold start's plan: the configs the cross-task model ranks best for this workload.
void XgbTuner::PlanFromCrossTask() {
  cross_task_planned_ = true;
  Plan([this](const std::vector<Config>& configs) { return cross_task_->Score(workload_features_, configs); });
}

void XgbTuner::Plan(const BatchScorer& score) {
  const auto fresh = [this](const Config& config) { return unseen_.IsFresh(config); };
  const AnnealingParams params{options_.plan_size, options_.sa_steps, options_.sa_early_stop};
  AnnealingResult result = Anneal(space_, StartingWalkers(), score, fresh, params, rng_);
  plan_ = std::move(result.plan);
  plan_next_ = 0;
  walkers_ = std::move(result.walkers);
}

std::vector<Config> XgbTuner::StartingWalkers() {
  std::vector<Config> walkers = walkers_;
  if (walkers.empty()) walkers = warm_walkers_;  // the first anneal starts from the warm start's best
  while (walkers.size() < options_.sa_walkers) {
    auto config = unseen_.Random(rng_);
    if (!config) break;
    walkers.push_back(std::move(*config));
  }
  return walkers;
}

// Epsilon-greedy: mostly the next fresh config of the plan, sometimes (and once the plan is
// used up) a random fresh one.
std::optional<Config> XgbTuner::NextCandidate() {
  if (plan_next_ < plan_.size() && !rng_.Chance(options_.epsilon)) {
    while (plan_next_ < plan_.size()) {
      const Config& config = plan_[plan_next_++];
      if (unseen_.IsFresh(config)) return config;
    }
  }
  return unseen_.Random(rng_);
}

}  // namespace tt
