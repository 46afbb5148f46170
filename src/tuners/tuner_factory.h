#pragma once
// Tuners by name, for the command line: `--tuner NAME --tuner-opt key=value ...`.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tuners/tuner.h"
#include "tuners/tuner_options.h"

namespace tt {

// `space` must outlive the tuner. Throws UserError for an unknown name (listing the known
// ones), an unknown option key or a bad option value.
std::unique_ptr<Tuner> MakeTuner(std::string_view name, const ConfigSpace& space, uint64_t seed,
                                 const std::map<std::string, std::string>& options);

// `options` plus budget=`trials` when tuner `name` takes a "budget" option (its defaults scale
// with the trials a run expects) and none is given; else `options` unchanged.
TunerOptionMap WithBudget(std::string_view name, TunerOptionMap options, int64_t trials);

// A tuner with options in one word, as `compare --tuners` takes them: "bo" or
// "bo:init=10:xi=0.1". Throws UserError for a malformed option.
struct TunerSpec {
  std::string name;
  TunerOptionMap options;
  std::string label;  // the word as given
};
TunerSpec ParseTunerSpec(std::string_view word);

// Every name MakeTuner accepts, in a fixed order.
std::vector<std::string> TunerNames();

struct TunerDoc {
  std::string name;
  std::string summary;  // one line
  std::vector<OptionDoc> options;
};
// Every tuner with its options, in TunerNames' order (`tensortune tuners`).
std::vector<TunerDoc> TunerDocs();

}  // namespace tt
