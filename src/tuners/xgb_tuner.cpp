#include "tuners/xgb_tuner.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "model/simulated_annealing.h"
#include "tuners/fitness.h"

namespace tt {
namespace {

XgbObjective ParseObjective(const std::string& text) {
  if (text == "rank") return XgbObjective::kRank;
  if (text == "reg") return XgbObjective::kRegression;
  throw UserError("tuner option objective='" + text + "' for tuner 'xgb' is not rank or reg");
}

XgbParams ModelParams(const XgbTunerOptions& options, uint64_t seed) {
  XgbParams params;
  params.objective = options.objective;
  params.seed = seed;
  return params;
}

}  // namespace

void XgbTunerOptions::Validate() const {
  RequireAtLeastOne("xgb", "plan_size", plan_size);
  RequireAtLeastOne("xgb", "train_every", train_every);
  RequireProbability("xgb", "epsilon", epsilon);
  RequireAtLeastOne("xgb", "sa_walkers", sa_walkers);
  RequireAtLeastOne("xgb", "sa_early_stop", sa_early_stop);
  if (!(importance_smoothing > 0 && importance_smoothing <= 1))
    throw UserError("xgb-tl option importance_smoothing must lie in (0, 1]");
}

XgbTunerOptions XgbTunerOptions::Parse(const TunerOptionMap& options, bool transfer) {
  XgbTunerOptions parsed;
  parsed.transfer = transfer;
  // The option reader knows numbers only; the one text option is taken out first.
  TunerOptionMap numeric = options;
  if (const auto it = numeric.find("objective"); it != numeric.end()) {
    parsed.objective = ParseObjective(it->second);
    numeric.erase(it);
  }
  TunerOptionReader reader(transfer ? "xgb-tl" : "xgb", numeric);
  parsed.plan_size = reader.Count("plan_size", parsed.plan_size);
  parsed.train_every = reader.Count("train_every", parsed.plan_size);
  parsed.epsilon = reader.Real("epsilon", parsed.epsilon);
  parsed.sa_walkers = reader.Count("sa_walkers", parsed.sa_walkers);
  parsed.sa_steps = reader.Count("sa_steps", parsed.sa_steps);
  parsed.sa_early_stop = reader.Count("sa_early_stop", parsed.sa_early_stop);
  if (transfer) {
    parsed.transfer_keep = reader.Count("transfer_keep", parsed.transfer_keep);
    parsed.importance_smoothing = reader.Real("importance_smoothing", parsed.importance_smoothing);
  }
  reader.RejectUnknown();
  parsed.Validate();
  return parsed;
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
  if (ShouldRetrain()) Replan();
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
      std::none_of(transfer_gflops_.begin(), transfer_gflops_.end(), positive))
    return false;
  return new_since_fit_ >= options_.train_every || (!model_.fitted() && transfer_.rows > 0);
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
  if (!(best > 0)) return;  // the filter kept failures only
  for (float& t : targets) t /= best;
  model_.Fit(train, targets);
  UpdateImportance();

  const auto score = [this](const std::vector<Config>& configs) { return model_.Predict(Features(configs)); };
  const auto fresh = [this](const Config& config) { return unseen_.IsFresh(config); };
  const AnnealingParams params{options_.plan_size, options_.sa_steps, options_.sa_early_stop};
  AnnealingResult result = Anneal(space_, StartingWalkers(), score, fresh, params, rng_);
  plan_ = std::move(result.plan);
  plan_next_ = 0;
  walkers_ = std::move(result.walkers);
}

std::vector<Config> XgbTuner::StartingWalkers() {
  std::vector<Config> walkers = walkers_;
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
