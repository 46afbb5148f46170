#include "tuners/gga_tuner.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "tuners/warm_configs.h"

namespace tt {
namespace {

// Tries at a fresh child before a random fresh config stands in for it.
constexpr int kMaxBreedingTries = 200;

std::vector<int64_t> DivisorsWithSmallFactors(int64_t n) {
  std::vector<int64_t> values{2, 4};  // small factors from experience (section III-B)
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) values.insert(values.end(), {d, n / d});
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

void SortBestFirst(std::vector<ScoredConfig>& scored) {
  std::stable_sort(scored.begin(), scored.end(),
                   [](const ScoredConfig& a, const ScoredConfig& b) { return a.fitness > b.fitness; });
}

}  // namespace

const OptionTable<GgaOptions>& GgaOptions::Table() {
  static const OptionTable<GgaOptions> table{
      {"pop_size", &GgaOptions::pop_size, "configs per generation; the first from adapted history", kAtLeastOne},
      {"elite_num", &GgaOptions::elite_num, "best configs whose genes guide crossover and mutation (at most pop_size)"},
      {"crossover_prob", &GgaOptions::crossover_prob, "chance of a guided crossover, else a mutation", kProbability},
      {"elite_mutation_prob", &GgaOptions::elite_mutation_prob,
       "chance that a mutation takes an elite gene, else a factor from experience", kProbability},
  };
  return table;
}

void GgaOptions::Validate() const {
  CheckOptionRanges("gga", Table(), *this);
  RequirePopulation("gga", pop_size, elite_num);
}

GgaOptions GgaOptions::Parse(const TunerOptionMap& options) {
  return ParseOptionTable("gga", Table(), options);  // the tuner validates the whole
}

GgaTuner::GgaTuner(const ConfigSpace& space, uint64_t seed, GgaOptions options)
    : space_(space), options_(options), rng_(seed), unseen_(space) {
  options_.Validate();
}

void GgaTuner::Seed(const std::vector<Observation>& history) {
  Update(history);
  DropSeeded(generation_, history);
}

// The candidates, best metric first (then other devices' best records), make the first
// population.
void GgaTuner::Prime(const WarmStart& warm_start) {
  // Each config seeded before may take one of the places.
  for (const Config& config : BestWarmConfigs(space_, warm_start, options_.pop_size + unseen_.num_seen())) {
    if (generation_.size() >= options_.pop_size) break;
    if (unseen_.IsFresh(config)) Propose(config, std::nullopt);
  }
}

void GgaTuner::Update(const std::vector<Observation>& measured) { ScoreMeasured(space_, measured, unseen_, observed_); }

std::vector<Config> GgaTuner::NextBatch(size_t max_size) {
  if (generation_.empty()) Breed();
  return TakeBatch(generation_, max_size);
}

void GgaTuner::Propose(Config config, std::optional<size_t> gene) {
  unseen_.MarkSeen(config);
  if (gene) genes_[space_.ToIndex(config)] = *gene;
  generation_.push_back(std::move(config));
}

void GgaTuner::Breed() {
  CollectEliteGenes();
  SelectParents();
  // Fitness of a parent is its rank (best: pop size), so one outlier does not take over.
  std::vector<double> rank_weights;
  for (size_t i = 0; i < parents_.size(); ++i) rank_weights.push_back(static_cast<double>(parents_.size() - i));
  for (size_t i = 0; i < options_.pop_size; ++i) {
    std::optional<Config> child = parents_.empty() ? std::nullopt : Offspring(rank_weights);
    if (child) continue;  // Offspring proposed it
    auto random = unseen_.Random(rng_);
    if (!random) break;  // the space is exhausted
    Propose(std::move(*random), std::nullopt);
  }
}

// Elite individuals: the elite_num best measured since the last breeding; the genes whose
// change made them join the elite genes.
void GgaTuner::CollectEliteGenes() {
  std::vector<ScoredConfig> ranked = observed_;
  SortBestFirst(ranked);
  for (size_t i = 0; i < std::min(options_.elite_num, ranked.size()); ++i) {
    if (!(ranked[i].fitness > 0)) break;
    const auto it = genes_.find(space_.ToIndex(ranked[i].config));
    if (it == genes_.end()) continue;
    const Gene gene{it->second, ranked[i].config[it->second]};
    if (std::find(elite_genes_.begin(), elite_genes_.end(), gene) == elite_genes_.end()) elite_genes_.push_back(gene);
  }
}

// Roulette over the last generation and the previous parents, the best always kept.
void GgaTuner::SelectParents() {
  std::vector<ScoredConfig> pool = std::move(observed_);
  observed_.clear();
  pool.insert(pool.end(), parents_.begin(), parents_.end());
  parents_.clear();
  if (pool.empty()) return;
  SortBestFirst(pool);
  std::vector<bool> taken(pool.size());
  const size_t wanted = std::min(options_.pop_size, pool.size());
  for (size_t pick = 0; parents_.size() < wanted;) {
    taken[pick] = true;
    parents_.push_back(pool[pick]);
    std::vector<double> weights;
    for (size_t i = 0; i < pool.size(); ++i) weights.push_back(taken[i] ? 0 : pool[i].fitness);
    if (std::any_of(weights.begin(), weights.end(), [](double w) { return w > 0; }))
      pick = PickByFitness(weights, rng_);
    else  // failures only are left: in order
      pick = static_cast<size_t>(std::find(taken.begin(), taken.end(), false) - taken.begin());
  }
  SortBestFirst(parents_);
}

std::optional<Config> GgaTuner::Offspring(const std::vector<double>& rank_weights) {
  for (int attempt = 0; attempt < kMaxBreedingTries; ++attempt) {
    size_t gene = 0;
    std::optional<Config> child;
    if (rng_.Chance(options_.crossover_prob) && parents_.size() > 1) {
      child = Crossover(rank_weights, gene);
    } else {
      const Config& parent = parents_[PickByFitness(rank_weights, rng_)].config;
      child = !elite_genes_.empty() && rng_.Chance(options_.elite_mutation_prob) ? MutateElite(parent, gene)
                                                                                 : MutateExpertise(parent, gene);
    }
    if (child && unseen_.IsFresh(*child)) {
      Propose(*child, gene);
      return child;
    }
  }
  return std::nullopt;
}

// One gene of a second parent replaces the first parent's.
std::optional<Config> GgaTuner::Crossover(const std::vector<double>& rank_weights, size_t& gene) {
  const size_t first = PickByFitness(rank_weights, rng_);
  std::vector<double> others = rank_weights;
  others[first] = 0;
  const size_t second = PickByFitness(others, rng_);
  std::vector<size_t> differing;
  for (size_t k = 0; k < space_.num_knobs(); ++k)
    if (parents_[first].config[k] != parents_[second].config[k]) differing.push_back(k);
  if (differing.empty()) return std::nullopt;
  gene = differing[rng_.Below(differing.size())];
  Config child = parents_[first].config;
  child[gene] = parents_[second].config[gene];
  return child;
}

std::optional<Config> GgaTuner::MutateElite(const Config& parent, size_t& gene) {
  const Gene& elite = elite_genes_[rng_.Below(elite_genes_.size())];
  if (parent[elite.first] == elite.second) return std::nullopt;
  Config child = parent;
  child[elite.first] = elite.second;
  gene = elite.first;
  return child;
}

// A split: one inner factor set to a divisor of the extent (or 2 or 4), the outermost factor
// absorbing the change. Other knobs: a neighbouring value.
std::optional<Config> GgaTuner::MutateExpertise(const Config& parent, size_t& gene) {
  if (space_.num_knobs() == 0) return std::nullopt;
  gene = rng_.Below(space_.num_knobs());
  const Knob& knob = space_.knob(gene);
  Config child = parent;
  if (knob.kind() == KnobKind::kSplit && knob.value(0).size() > 1) {
    KnobValue value = knob.value(parent[gene]);
    int64_t extent = 1;
    for (const int64_t f : value) extent *= f;
    const auto choices = DivisorsWithSmallFactors(extent);
    const size_t position = 1 + rng_.Below(value.size() - 1);
    value[position] = choices[rng_.Below(choices.size())];
    int64_t inner = 1;
    for (size_t i = 1; i < value.size(); ++i) inner *= value[i];
    if (extent % inner != 0) return std::nullopt;
    value[0] = extent / inner;
    const auto index = knob.Find(value);
    if (!index) return std::nullopt;
    child[gene] = *index;
  } else {
    const auto& neighbours = knob.neighbours(parent[gene]);
    if (neighbours.empty()) return std::nullopt;
    child[gene] = neighbours[rng_.Below(neighbours.size())];
  }
  return child;
}

}  // namespace tt
