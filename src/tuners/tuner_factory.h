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
