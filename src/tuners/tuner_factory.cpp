#include "tuners/tuner_factory.h"

#include <array>

#include "core/errors.h"
#include "core/named_table.h"
#include "tuners/bo_tuner.h"
#include "tuners/ga_tuner.h"
#include "tuners/gbfs_tuner.h"
#include "tuners/gga_tuner.h"
#include "tuners/grid_tuner.h"
#include "tuners/opevo_tuner.h"
#include "tuners/random_tuner.h"
#include "tuners/xgb_tuner.h"

namespace tt {
namespace {

using MakeFn = std::unique_ptr<Tuner> (*)(const ConfigSpace&, uint64_t, const TunerOptionMap&);

using DocFn = std::vector<OptionDoc> (*)();

struct TunerEntry {
  std::string_view name;
  std::string_view summary;
  MakeFn make;
  DocFn options;
};

std::vector<OptionDoc> NoOptions() { return {}; }

void RejectAnyOption(std::string_view tuner, const TunerOptionMap& options) {
  TunerOptionReader(tuner, options).RejectUnknown();
}

// A new tuner is one more row here.
constexpr std::array<TunerEntry, 9> kTuners{{
    {"random", "uniform over the valid configs not measured yet",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       RejectAnyOption("random", options);
       return std::make_unique<RandomTuner>(space, seed);
     },
     NoOptions},
    {"grid", "every valid config in order",
     [](const ConfigSpace& space, uint64_t, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       RejectAnyOption("grid", options);
       return std::make_unique<GridTuner>(space);
     },
     NoOptions},
    {"opevo", "OpEvo: evolution with q-random-walk mutation over each knob's topology",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<OpEvoTuner>(space, seed, OpEvoOptions::Parse(options));
     },
     [] { return DocumentOptionTable(OpEvoOptions::Table()); }},
    {"ga", "AutoTVM's genetic algorithm",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GaTuner>(space, seed, GaOptions::Parse(options));
     },
     [] { return DocumentOptionTable(GaOptions::Table()); }},
    {"xgb", "AutoTVM's XGBoost cost model, its plan found by simulated annealing",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<XgbTuner>(space, seed, options);
     },
     [] { return DocumentOptionTable(XgbTunerOptions::Table(false)); }},
    {"gbfs", "greedy best-first search over knob neighbours",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GbfsTuner>(space, seed, GbfsOptions::Parse(options));
     },
     [] { return DocumentOptionTable(GbfsOptions::Table()); }},
    {"gga", "guided GA from adapted history records (history-based auto-tuning)",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GgaTuner>(space, seed, GgaOptions::Parse(options));
     },
     [] { return DocumentOptionTable(GgaOptions::Table()); }},
    {"xgb-tl", "xgb pre-trained on other workloads' history, filtered at every fit",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<XgbTuner>(space, seed, XgbTunerOptions::Parse(options, /*transfer=*/true));
     },
     [] {
       XgbTunerOptions defaults;
       defaults.transfer = true;
       return DocumentOptionTable(XgbTunerOptions::Table(true), defaults);
     }},
    {"bo", "Bayesian optimization: a Gaussian process of log GFLOPS, expected improvement times the chance to run",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<BoTuner>(space, seed, BoOptions::Parse(options));
     },
     [] { return DocumentOptionTable(BoOptions::Table()); }},
}};

}  // namespace

std::unique_ptr<Tuner> MakeTuner(std::string_view name, const ConfigSpace& space, uint64_t seed,
                                 const std::map<std::string, std::string>& options) {
  return FindNamed(kTuners, "tuner", name).make(space, seed, options);
}

std::vector<TunerDoc> TunerDocs() {
  std::vector<TunerDoc> docs;
  for (const auto& entry : kTuners)
    docs.push_back({std::string(entry.name), std::string(entry.summary), entry.options()});
  return docs;
}

TunerOptionMap WithBudget(std::string_view name, TunerOptionMap options, int64_t trials) {
  if (trials <= 0 || options.count("budget")) return options;
  for (const auto& entry : kTuners) {
    if (entry.name != name) continue;
    for (const auto& doc : entry.options())
      if (doc.key == "budget") options["budget"] = std::to_string(trials);
  }
  return options;
}

TunerSpec ParseTunerSpec(std::string_view word) {
  TunerSpec spec;
  spec.label = std::string(word);
  size_t colon = word.find(':');
  spec.name = std::string(word.substr(0, colon));
  while (colon != std::string_view::npos) {
    const size_t next = word.find(':', colon + 1);
    const std::string_view item = word.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw UserError("malformed tuner option '" + std::string(item) + "' in '" + spec.label + "': expected key=value");
    spec.options[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    colon = next;
  }
  return spec;
}

std::vector<std::string> TunerNames() { return NamesOf(kTuners); }

}  // namespace tt
