#include "tuners/tuner_factory.h"

#include <array>

#include "core/errors.h"
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

struct TunerEntry {
  std::string_view name;
  MakeFn make;
};

void RejectAnyOption(std::string_view tuner, const TunerOptionMap& options) {
  TunerOptionReader(tuner, options).RejectUnknown();
}

// A new tuner is one more row here.
constexpr std::array<TunerEntry, 8> kTuners{{
    {"random",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       RejectAnyOption("random", options);
       return std::make_unique<RandomTuner>(space, seed);
     }},
    {"grid",
     [](const ConfigSpace& space, uint64_t, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       RejectAnyOption("grid", options);
       return std::make_unique<GridTuner>(space);
     }},
    {"opevo",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<OpEvoTuner>(space, seed, OpEvoOptions::Parse(options));
     }},
    {"ga",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GaTuner>(space, seed, GaOptions::Parse(options));
     }},
    {"xgb",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<XgbTuner>(space, seed, options);
     }},
    {"gbfs",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GbfsTuner>(space, seed, GbfsOptions::Parse(options));
     }},
    {"gga",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<GgaTuner>(space, seed, GgaOptions::Parse(options));
     }},
    {"xgb-tl",
     [](const ConfigSpace& space, uint64_t seed, const TunerOptionMap& options) -> std::unique_ptr<Tuner> {
       return std::make_unique<XgbTuner>(space, seed, XgbTunerOptions::Parse(options, /*transfer=*/true));
     }},
}};

}  // namespace

std::unique_ptr<Tuner> MakeTuner(std::string_view name, const ConfigSpace& space, uint64_t seed,
                                 const std::map<std::string, std::string>& options) {
  for (const auto& entry : kTuners)
    if (entry.name == name) return entry.make(space, seed, options);
  std::string known;
  for (const auto& n : TunerNames()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown tuner '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> TunerNames() {
  std::vector<std::string> names;
  for (const auto& entry : kTuners) names.emplace_back(entry.name);
  return names;
}

}  // namespace tt
