#include "tuners/bo_tuner.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/errors.h"
#include "space/config_adapt.h"
#include "tuners/space_filling.h"

namespace tt {
namespace {

// Spaces up to this many points have their valid configs listed once.
constexpr uint64_t kEnumerate = uint64_t{1} << 18;
// Rows of each source's own model, best and random ones.
constexpr size_t kSourceRows = 256, kSourceBestRows = 96;
// Pseudo-observations behind the similarity-based prior of the source weights.
constexpr double kWeightPrior = 4;
// The chance to run that a candidate is never rated below.
constexpr double kMinChanceToRun = 1e-3;
constexpr double kInvSqrt2 = 0.7071067811865476;

}  // namespace

BoTuner::BoTuner(const ConfigSpace& space, uint64_t seed, BoOptions options)
    : space_(space), options_(options), rng_(seed), unseen_(space) {
  options_.Validate();
  BuildFeatureTable();
}

// Every knob's values as columns in [0, 1]: a split's factors on a log scale, an ordered
// knob's rank (and whether it is a power of two), a categorical knob one-hot; columns that never change are left out.
void BoTuner::BuildFeatureTable() {
  knob_features_.resize(space_.num_knobs());
  dims_ = 0;
  for (size_t k = 0; k < space_.num_knobs(); ++k) {
    const Knob& knob = space_.knob(k);
    const size_t n = knob.size();
    std::vector<std::vector<double>> raw(n);
    bool any_power = false, any_other = false;
    for (size_t v = 0; v < n; ++v) (IsPowerOfTwo(knob.value(v)[0]) ? any_power : any_other) = true;
    const bool mixes_powers_of_two = knob.kind() == KnobKind::kDiscrete && any_power && any_other;
    for (size_t v = 0; v < n; ++v) {
      const KnobValue& value = knob.value(v);
      switch (knob.kind()) {
        case KnobKind::kSplit:
          for (int64_t f : value) raw[v].push_back(std::log2(static_cast<double>(std::max<int64_t>(f, 1))));
          break;
        case KnobKind::kPermutation:
          for (int64_t p : value) raw[v].push_back(static_cast<double>(p));
          break;
        case KnobKind::kDiscrete:
          raw[v].push_back(static_cast<double>(v));
          // Powers of two are special on every device (warps, vector widths, banks): a knob
          // that mixes them with other values gets a column saying which is which.
          if (mixes_powers_of_two) raw[v].push_back(IsPowerOfTwo(value[0]) ? 1.0 : 0.0);
          break;
        case KnobKind::kCategorical:
          raw[v].assign(n, 0.0);
          raw[v][v] = kInvSqrt2;
          break;
      }
    }
    const size_t cols = n > 0 ? raw[0].size() : 0;
    std::vector<size_t> kept;
    std::vector<double> low(cols), high(cols);
    for (size_t c = 0; c < cols; ++c) {
      low[c] = high[c] = raw[0][c];
      for (size_t v = 1; v < n; ++v) low[c] = std::min(low[c], raw[v][c]), high[c] = std::max(high[c], raw[v][c]);
      if (high[c] > low[c]) kept.push_back(c);
    }
    knob_features_[k].resize(n);
    for (size_t v = 0; v < n; ++v)
      for (size_t c : kept)
        knob_features_[k][v].push_back(
            knob.kind() == KnobKind::kCategorical ? raw[v][c] : (raw[v][c] - low[c]) / (high[c] - low[c]));
    dims_ += kept.size();
  }
}

Eigen::VectorXd BoTuner::FeaturesOf(const Config& config) const {
  Eigen::VectorXd f(static_cast<Eigen::Index>(dims_));
  Eigen::Index j = 0;
  for (size_t k = 0; k < config.size(); ++k)
    for (double x : knob_features_[k][config[k]]) f[j++] = x;
  return f;
}

Eigen::MatrixXd BoTuner::FeatureRows(const std::vector<Config>& configs) const {
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(configs.size()), static_cast<Eigen::Index>(dims_));
  for (size_t i = 0; i < configs.size(); ++i)
    rows.row(static_cast<Eigen::Index>(i)) = FeaturesOf(configs[i]).transpose();
  return rows;
}

void BoTuner::Update(const std::vector<Observation>& measured) {
  for (const auto& m : measured) {
    if (!InSpace(space_, m.config)) continue;
    unseen_.MarkSeen(m.config);
    observed_.push_back(m.config);
    fitness_.push_back(m.status == MeasureStatus::kOk && m.gflops > 0 ? m.gflops : 0);
  }
}

void BoTuner::Prime(const WarmStart& warm_start) {
  std::map<int, std::vector<std::pair<Config, double>>> by_source;
  std::map<int, double> similarity;
  for (const TransferSample& s : warm_start.transfer) {
    const auto adapted = AdaptConfig(space_, s.values);
    if (!adapted) continue;
    by_source[s.source].emplace_back(adapted->config, s.gflops);
    similarity[s.source] = std::max(similarity[s.source], s.similarity);
  }
  for (auto& [id, samples] : by_source) {
    std::vector<double> logs;
    for (const auto& [config, gflops] : samples)
      if (gflops > 0) logs.push_back(std::log(gflops));
    if (logs.size() < 2 || !(similarity[id] > 0)) continue;
    const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
    double var = 0;
    for (double l : logs) var += (l - mean) * (l - mean);
    const double sd = std::max(std::sqrt(var / static_cast<double>(logs.size())), 1e-3);
    double worst = 0;
    for (double l : logs) worst = std::min(worst, (l - mean) / sd);
    Source source;
    source.id = id;
    source.similarity = similarity[id];
    source.log_sd = sd;
    // A config that failed there ranks with the worst that ran.
    std::vector<std::pair<double, Config>> rows;
    for (const auto& [config, gflops] : samples) {
      const double z = gflops > 0 ? (std::log(gflops) - mean) / sd : worst;
      const uint64_t index = space_.ToIndex(config);
      const auto [it, inserted] = source.exact.emplace(index, z);
      if (!inserted)
        it->second = std::max(it->second, z);
      else
        rows.emplace_back(z, config);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    // Its model: the best rows and a random share of the rest.
    std::vector<std::pair<double, Config>> picked(rows.begin(), rows.begin() + std::min(rows.size(), kSourceBestRows));
    std::vector<std::pair<double, Config>> rest(rows.begin() + static_cast<std::ptrdiff_t>(picked.size()), rows.end());
    rng_.Shuffle(rest);
    for (size_t i = 0; i < rest.size() && picked.size() < kSourceRows; ++i) picked.push_back(rest[i]);
    std::vector<Config> configs;
    Eigen::VectorXd z(static_cast<Eigen::Index>(picked.size()));
    for (size_t i = 0; i < picked.size(); ++i)
      configs.push_back(picked[i].second), z[static_cast<Eigen::Index>(i)] = picked[i].first;
    if (dims_ > 0)
      source.model.FitHyper(FeatureRows(configs), z, DefaultHyper(dims_), static_cast<int>(options_.hyper_steps));
    sources_.push_back(std::move(source));
  }
  if (sources_.empty()) return;
  // Prior weights: each source's share of the similarity, all of them scaled by the best one.
  double total = 0, top = 0;
  for (const Source& s : sources_) total += s.similarity, top = std::max(top, s.similarity);
  source_weight_.clear();
  for (const Source& s : sources_) source_weight_.push_back(std::min(top, 1.0) * s.similarity / total);
  const auto most_similar = std::max_element(
      sources_.begin(), sources_.end(), [](const Source& a, const Source& b) { return a.similarity < b.similarity; });
  if (most_similar->model.fitted()) hyper_ = most_similar->model.hyper();
  // Candidates that must never be missed: the sources' best configs, by weighted score.
  std::map<uint64_t, double> score;
  for (size_t s = 0; s < sources_.size(); ++s)
    for (const auto& [index, z] : sources_[s].exact) score[index] += source_weight_[s] * z;
  std::vector<std::pair<double, uint64_t>> ranked;
  for (const auto& [index, value] : score) ranked.emplace_back(value, index);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  for (const auto& [value, index] : ranked) {
    if (source_best_.size() >= 64) break;
    const Config config = space_.FromIndex(index);
    if (space_.IsValid(config)) source_best_.push_back(config);
  }
}

std::vector<double> BoTuner::SourceWeights() const { return source_weight_; }

Eigen::MatrixXd BoTuner::SourcePredictions(const std::vector<Config>& configs, const Eigen::MatrixXd& features) const {
  const auto n = static_cast<Eigen::Index>(configs.size());
  Eigen::MatrixXd p(n, static_cast<Eigen::Index>(sources_.size()));
  for (size_t s = 0; s < sources_.size(); ++s) {
    const Source& source = sources_[s];
    std::vector<Eigen::Index> missing;
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto it = source.exact.find(space_.ToIndex(configs[static_cast<size_t>(i)]));
      if (it != source.exact.end())
        p(i, static_cast<Eigen::Index>(s)) = it->second;
      else
        missing.push_back(i);
    }
    if (missing.empty()) continue;
    if (!source.model.fitted()) {
      for (Eigen::Index i : missing) p(i, static_cast<Eigen::Index>(s)) = 0;
      continue;
    }
    Eigen::MatrixXd rows(static_cast<Eigen::Index>(missing.size()), features.cols());
    for (size_t r = 0; r < missing.size(); ++r) rows.row(static_cast<Eigen::Index>(r)) = features.row(missing[r]);
    Eigen::VectorXd mean, var;
    source.model.Predict(rows, mean, var);
    for (size_t r = 0; r < missing.size(); ++r)
      p(missing[r], static_cast<Eigen::Index>(s)) = mean[static_cast<Eigen::Index>(r)];
  }
  return p;
}

// Ridge regression of this task's results on the sources' predictions, with an intercept,
// towards the similarity-based prior weights; negative weights are cut to 0.
void BoTuner::FitSourceWeights(const Eigen::MatrixXd& predictions, const Eigen::VectorXd& y) {
  const Eigen::Index s = predictions.cols(), n = predictions.rows();
  std::vector<double> prior(sources_.size(), 0.0);
  double total = 0, top = 0;
  for (const Source& source : sources_) total += source.similarity, top = std::max(top, source.similarity);
  for (size_t i = 0; i < sources_.size(); ++i) prior[i] = std::min(top, 1.0) * sources_[i].similarity / total;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(s + 1, s + 1);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(s + 1);
  Eigen::MatrixXd design(n, s + 1);
  design.leftCols(s) = predictions;
  design.col(s).setOnes();
  a = design.transpose() * design;
  b = design.transpose() * y;
  for (Eigen::Index i = 0; i < s; ++i) a(i, i) += kWeightPrior, b[i] += kWeightPrior * prior[static_cast<size_t>(i)];
  a(s, s) += 1e-2;
  const Eigen::VectorXd w = a.ldlt().solve(b);
  source_weight_.assign(static_cast<size_t>(s), 0);
  for (Eigen::Index i = 0; i < s; ++i) source_weight_[static_cast<size_t>(i)] = std::max(w[i], 0.0);
}

void BoTuner::EnumerateValid() {
  enumerated_ = true;
  if (space_.Size() > kEnumerate) return;
  for (uint64_t i = 0; i < space_.Size(); ++i)
    if (space_.IsValid(space_.FromIndex(i))) valid_.push_back(i);
}

void BoTuner::AddNeighbours(const Config& config, std::vector<Config>& out, std::unordered_map<uint64_t, bool>& taken) {
  for (size_t k = 0; k < config.size(); ++k)
    for (uint32_t v : space_.knob(k).neighbours(config[k])) {
      Config next = config;
      next[k] = v;
      const uint64_t index = space_.ToIndex(next);
      if (taken.count(index) || !unseen_.IsFresh(next)) continue;
      taken[index] = true;
      out.push_back(std::move(next));
    }
}

// Fresh valid configs to score: every one when few enough, else a random sample; plus the
// fresh neighbours of the best configs so far and the warm start's best.
std::vector<Config> BoTuner::Candidates() {
  if (!enumerated_) EnumerateValid();
  std::vector<Config> out;
  std::unordered_map<uint64_t, bool> taken;
  if (!valid_.empty()) {
    std::vector<uint64_t> fresh;
    for (uint64_t i : valid_)
      if (!unseen_.Seen(space_.FromIndex(i))) fresh.push_back(i);
    if (fresh.size() > options_.candidates) {
      for (size_t i = 0; i < options_.candidates; ++i) std::swap(fresh[i], fresh[i + rng_.Below(fresh.size() - i)]);
      fresh.resize(options_.candidates);
    }
    for (uint64_t i : fresh) taken[i] = true, out.push_back(space_.FromIndex(i));
  } else {
    for (size_t i = 0; i < options_.candidates; ++i) {
      auto config = unseen_.Random(rng_);
      if (!config) break;
      const uint64_t index = space_.ToIndex(*config);
      if (taken.count(index)) continue;
      taken[index] = true;
      out.push_back(std::move(*config));
    }
  }
  for (size_t i : BestFirst(options_.neighbours_of)) AddNeighbours(observed_[i], out, taken);
  for (const Config& config : source_best_) {
    const uint64_t index = space_.ToIndex(config);
    if (!taken.count(index) && unseen_.IsFresh(config)) taken[index] = true, out.push_back(config);
  }
  return out;
}

// A second GP, of success (1) and failure (0) over every observed config with length scales
// of its own: where failures are not all over the space, it learns which knobs decide them.
Eigen::VectorXd BoTuner::ChanceToRun(size_t successes, const Eigen::MatrixXd& candidates) {
  const auto m = candidates.rows();
  if (successes == observed_.size()) return Eigen::VectorXd::Ones(m);
  const double rate = (static_cast<double>(successes) + 1) / (static_cast<double>(observed_.size()) + 2);
  std::vector<size_t> rows(observed_.size());
  std::iota(rows.begin(), rows.end(), 0);
  if (rows.size() > options_.max_rows) {  // failures up to half (more where few ran), at random
    std::stable_partition(rows.begin(), rows.end(), [&](size_t i) { return fitness_[i] <= 0; });
    const size_t failures = observed_.size() - successes;
    const size_t keep_failures =
        std::min(failures, std::max(options_.max_rows / 2, options_.max_rows - std::min(successes, options_.max_rows)));
    const size_t keep_successes = std::min(successes, options_.max_rows - keep_failures);
    rng_.Shuffle(rows);
    std::stable_partition(rows.begin(), rows.end(), [&](size_t i) { return fitness_[i] <= 0; });
    std::vector<size_t> kept(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(keep_failures));
    kept.insert(kept.end(), rows.begin() + static_cast<std::ptrdiff_t>(failures),
                rows.begin() + static_cast<std::ptrdiff_t>(failures + keep_successes));
    rows = std::move(kept);
  }
  std::vector<Config> configs;
  Eigen::VectorXd label(static_cast<Eigen::Index>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    configs.push_back(observed_[rows[i]]);
    label[static_cast<Eigen::Index>(i)] = (fitness_[rows[i]] > 0 ? 1.0 : 0.0) - rate;
  }
  const Eigen::MatrixXd x = FeatureRows(configs);
  if (!feasibility_hyper_) {
    feasibility_hyper_ = hyper_ ? *hyper_ : DefaultHyper(dims_);
    feasibility_hyper_->log_linear.resize(0);
    feasibility_hyper_->log_signal = std::log(rate * (1 - rate));
    feasibility_hyper_->log_noise = std::log(0.01);
  }
  if (observed_.size() >= feasibility_fitted_at_ + std::max<size_t>(4, feasibility_fitted_at_ / 4)) {
    feasibility_hyper_ = feasibility_.FitHyper(x, label, *feasibility_hyper_, static_cast<int>(options_.hyper_steps));
    feasibility_fitted_at_ = observed_.size();
  } else {
    feasibility_.Fit(x, label, *feasibility_hyper_);
  }
  Eigen::VectorXd mean, var;
  feasibility_.Predict(candidates, mean, var);
  return (mean.array() + rate).max(kMinChanceToRun).min(1.0).matrix();
}

// This task's results so far as the model: standardized log GFLOPS, the sources' prior fitted
// to them, a Gaussian process on what the prior leaves; nullopt when there is nothing to model.
std::optional<BoTuner::Fitted> BoTuner::FitModel() {
  std::vector<size_t> ok;
  for (size_t i = 0; i < observed_.size(); ++i)
    if (fitness_[i] > 0) ok.push_back(i);
  if (dims_ == 0 || (ok.empty() && sources_.empty())) return std::nullopt;
  const auto n = static_cast<Eigen::Index>(ok.size());

  // Standardized log GFLOPS; with few results the sources' spread stands in for their own.
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) y[i] = std::log(fitness_[ok[static_cast<size_t>(i)]]);
  double fallback_sd = 1;
  if (!sources_.empty()) {
    fallback_sd = 0;
    for (const Source& s : sources_) fallback_sd += s.log_sd / static_cast<double>(sources_.size());
  }
  const double mean = n > 0 ? y.mean() : 0;
  double sd = fallback_sd;
  if (n >= 3) sd = std::max(std::sqrt((y.array() - mean).square().mean()), 1e-3);
  y = (y.array() - mean) / sd;

  std::vector<Config> ok_configs;
  for (size_t i : ok) ok_configs.push_back(observed_[i]);
  const Eigen::MatrixXd x = FeatureRows(ok_configs);
  Eigen::VectorXd prior_ok = Eigen::VectorXd::Zero(n);
  double intercept = 0;
  if (!sources_.empty()) {
    const Eigen::MatrixXd p = SourcePredictions(ok_configs, x);
    if (n > 0) {
      FitSourceWeights(p, y);
      const Eigen::VectorXd w =
          Eigen::Map<const Eigen::VectorXd>(source_weight_.data(), static_cast<Eigen::Index>(source_weight_.size()));
      prior_ok = p * w;
      intercept = (y - prior_ok).mean();
      prior_ok.array() += intercept;
    }
  }
  Eigen::VectorXd residual = y - prior_ok;
  // The GP's cost grows with the cube of its rows: past max_rows it keeps the best half and a
  // random share of the rest.
  Eigen::MatrixXd gp_x = x;
  if (static_cast<size_t>(n) > options_.max_rows) {
    std::vector<Eigen::Index> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return y[a] > y[b]; });
    const size_t best_rows = options_.max_rows / 2;
    for (size_t i = best_rows; i < options_.max_rows; ++i) std::swap(order[i], order[i + rng_.Below(order.size() - i)]);
    order.resize(options_.max_rows);
    Eigen::MatrixXd kept_x(static_cast<Eigen::Index>(order.size()), x.cols());
    Eigen::VectorXd kept_r(static_cast<Eigen::Index>(order.size()));
    for (size_t i = 0; i < order.size(); ++i) {
      kept_x.row(static_cast<Eigen::Index>(i)) = x.row(order[i]);
      kept_r[static_cast<Eigen::Index>(i)] = residual[order[i]];
    }
    gp_x = std::move(kept_x);
    residual = std::move(kept_r);
  }
  if (!hyper_) {
    hyper_ = DefaultHyper(dims_);
    if (options_.trend > 0)
      hyper_->log_linear = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(dims_), std::log(options_.trend));
  }
  const bool refit = n >= 3 && (hyper_fitted_at_ == 0 ||
                                static_cast<size_t>(n) >= hyper_fitted_at_ + std::max<size_t>(4, hyper_fitted_at_ / 4));
  if (refit) {
    const int steps =
        static_cast<int>(hyper_fitted_at_ == 0 ? options_.hyper_steps : std::max<size_t>(options_.hyper_steps / 2, 1));
    hyper_ = gp_.FitHyper(gp_x, residual, *hyper_, steps);
    hyper_fitted_at_ = static_cast<size_t>(n);
  } else {
    gp_.Fit(gp_x, residual, *hyper_);
  }
  return Fitted{n, n > 0 ? y.maxCoeff() : -std::numeric_limits<double>::infinity(), intercept, ok.size()};
}

// A batch of `size` candidates, one at a time: the best by the acquisition (greedy at first,
// then expected improvement among `near_best` for the local picks, then among all, each
// weighed by the chance to run), each pick conditioning the others' variance as if its result
// were known.
std::vector<Config> BoTuner::PickBatch(const std::vector<Config>& candidates, const std::vector<char>& near_best,
                                       const Fitted& fitted, size_t size) {
  const Eigen::Index n = fitted.n;
  const double intercept = fitted.intercept, best = fitted.best;
  const auto m = static_cast<Eigen::Index>(candidates.size());
  const Eigen::MatrixXd xc = FeatureRows(candidates);
  Eigen::VectorXd mu, var;
  Eigen::MatrixXd cross;
  gp_.Predict(xc, mu, var, &cross);
  if (!sources_.empty()) {
    const Eigen::MatrixXd p = SourcePredictions(candidates, xc);
    const Eigen::VectorXd w =
        Eigen::Map<const Eigen::VectorXd>(source_weight_.data(), static_cast<Eigen::Index>(source_weight_.size()));
    mu += p * w;
    mu.array() += intercept;
  }

  Eigen::VectorXd feasible = ChanceToRun(fitted.successes, xc);
  if (options_.feasibility != 1) feasible = feasible.array().pow(options_.feasibility).matrix();

  const double noise = std::exp(hyper_->log_noise);
  std::vector<char> chosen(static_cast<size_t>(m), 0);
  auto local_left = static_cast<size_t>(std::count(near_best.begin(), near_best.end(), 1));
  std::vector<Eigen::VectorXd> conditioned;  // per pick: its covariance with every candidate, scaled
  std::vector<Config> picks;
  while (picks.size() < size) {
    Eigen::Index pick = -1;
    double top = -std::numeric_limits<double>::infinity();
    for (Eigen::Index c = 0; c < m; ++c) {
      if (chosen[static_cast<size_t>(c)]) continue;
      const double s = std::sqrt(std::max(var[c], 0.0));
      const bool greedy = picks.size() < options_.greedy;
      if (local_left > 0 && !greedy && picks.size() < options_.greedy + options_.local &&
          !near_best[static_cast<size_t>(c)])
        continue;
      const double a = n == 0   ? mu[c] + s
                       : greedy ? mu[c] + std::log(std::max(feasible[c], 1e-12))
                                : ExpectedImprovement(mu[c] - options_.xi, s, best) * feasible[c];
      if (a > top) top = a, pick = c;
    }
    if (pick < 0) break;
    chosen[static_cast<size_t>(pick)] = 1;
    if (near_best[static_cast<size_t>(pick)]) --local_left;
    picks.push_back(candidates[static_cast<size_t>(pick)]);
    if (picks.size() == size) break;
    // Condition every candidate's variance on the pick (its result not known yet).
    Eigen::VectorXd cov(m);
    const Eigen::VectorXd xp = xc.row(pick).transpose();
    for (Eigen::Index c = 0; c < m; ++c) {
      const Eigen::VectorXd xr = xc.row(c).transpose();
      cov[c] = gp_.Kernel(xr.data(), xp.data());
    }
    if (cross.rows() > 0) cov -= cross.transpose() * cross.col(pick);
    for (const Eigen::VectorXd& prev : conditioned) cov -= prev * prev[pick];
    const double scale = std::sqrt(std::max(var[pick], 0.0) + noise);
    conditioned.push_back(cov / scale);
    var = (var.array() - conditioned.back().array().square()).max(1e-12).matrix();
  }
  return picks;
}

std::vector<Config> BoTuner::ModelBatch(size_t size) {
  const auto fitted = FitModel();
  if (!fitted) return {};
  const std::vector<Config> candidates = Candidates();
  if (candidates.empty()) return {};
  // Which candidates are one knob away from the best config: the local picks' pool. Local
  // searches lead replays where a lone optimum sits next to good configs, which a model fitted
  // on every result ranks too low to look at. Once the best's neighbours are all measured, the
  // pool is the next best's, as a local search moves on (CLBlast's GEMM on a 2080 Ti: 95% of
  // the optimum in 138 trials instead of 176).
  std::vector<char> near_best(candidates.size(), 0);
  if (options_.local > 0) {
    std::unordered_map<uint64_t, size_t> position;  // of each candidate, by flat index
    for (size_t i = 0; i < candidates.size(); ++i) position.emplace(space_.ToIndex(candidates[i]), i);
    for (size_t best : BestFirst(std::max<size_t>(options_.neighbours_of, 1))) {
      std::vector<Config> neighbours;
      std::unordered_map<uint64_t, bool> taken;
      AddNeighbours(observed_[best], neighbours, taken);
      bool any = false;
      for (const auto& [index, unused] : taken)
        if (const auto it = position.find(index); it != position.end()) near_best[it->second] = 1, any = true;
      if (any) break;
    }
  }
  return PickBatch(candidates, near_best, *fitted, size);
}

// An initial-design config: with chance init_local a fresh neighbour of the best config
// measured so far (a seeded start, a transfer or the device's starting config, is usually
// good, and better configs are often one knob away: where the local searches that lead the
// early phase of replays look first), else, or where nothing ran yet, a random one: the model
// needs the spread. Off by default: on ResNet-18 it made no difference beyond the noise.
std::optional<Config> BoTuner::InitialDesignConfig(const std::vector<Config>& batch) {
  if (observed_.empty() && unseen_.num_seen() < options_.centre) {
    // A cold start's first looks: the middle value of every knob is a better bet than a random
    // point (on 11 of 14 brute-forced GPU spaces), and its neighbours share that.
    Config centre(space_.num_knobs());
    for (size_t k = 0; k < centre.size(); ++k) centre[k] = static_cast<uint32_t>((space_.knob(k).size() - 1) / 2);
    if (unseen_.IsFresh(centre)) return centre;
    std::vector<Config> neighbours;
    std::unordered_map<uint64_t, bool> taken;
    AddNeighbours(centre, neighbours, taken);
    if (!neighbours.empty()) return neighbours[static_cast<size_t>(rng_.Below(neighbours.size()))];
  }
  if (options_.init_local <= 0) return SpreadRandomConfig(batch);
  const std::optional<size_t> best = BestObserved();
  if (best && rng_.Chance(options_.init_local)) {
    std::vector<Config> neighbours;
    std::unordered_map<uint64_t, bool> taken;
    AddNeighbours(observed_[*best], neighbours, taken);
    if (!neighbours.empty()) return neighbours[static_cast<size_t>(rng_.Below(neighbours.size()))];
  }
  return SpreadRandomConfig(batch);
}

// A random look of the initial design: with `spread`, the farthest of that many random fresh
// configs from those measured and picked so far.
std::optional<Config> BoTuner::SpreadRandomConfig(const std::vector<Config>& batch) {
  if (options_.spread <= 1) return unseen_.Random(rng_);
  std::vector<Config> candidates;
  for (size_t i = 0; i < options_.spread; ++i) {
    auto config = unseen_.Random(rng_);
    if (!config) break;  // exhausted: a draw that found nothing would only search again as long
    candidates.push_back(std::move(*config));
  }
  if (candidates.empty()) return std::nullopt;
  std::vector<const Config*> chosen;
  for (const Config& c : observed_) chosen.push_back(&c);
  for (const Config& c : batch) chosen.push_back(&c);
  return candidates[FarthestCandidate(space_, candidates, chosen)];
}

std::vector<size_t> BoTuner::BestFirst(size_t top) const {
  std::vector<size_t> order;
  for (size_t i = 0; i < observed_.size(); ++i)
    if (fitness_[i] > 0) order.push_back(i);
  top = std::min(order.size(), top);
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
      [&](size_t a, size_t b) { return fitness_[a] > fitness_[b] || (fitness_[a] == fitness_[b] && a < b); });
  order.resize(top);
  return order;
}

std::optional<size_t> BoTuner::BestObserved() const {
  const std::vector<size_t> best = BestFirst(1);
  if (best.empty()) return std::nullopt;
  return best[0];
}

std::vector<Config> BoTuner::NextBatch(size_t max_size) {
  std::vector<Config> batch;
  const size_t init = options_.InitialDesign(!sources_.empty());
  while (batch.size() < max_size) {
    if (unseen_.num_seen() < init) {
      auto config = InitialDesignConfig(batch);
      if (!config) break;
      unseen_.MarkSeen(*config);
      batch.push_back(std::move(*config));
      continue;
    }
    std::vector<Config> picks = ModelBatch(max_size - batch.size());
    for (Config& config : picks) {
      if (options_.epsilon > 0 && rng_.Chance(options_.epsilon))
        if (auto random = unseen_.Random(rng_)) config = std::move(*random);
      if (!unseen_.IsFresh(config)) continue;
      unseen_.MarkSeen(config);
      batch.push_back(std::move(config));
    }
    while (batch.size() < max_size) {  // no model yet (nothing ran), or the candidates ran out
      auto config = unseen_.Random(rng_);
      if (!config) break;
      unseen_.MarkSeen(*config);
      batch.push_back(std::move(*config));
    }
    break;
  }
  return batch;
}

}  // namespace tt
