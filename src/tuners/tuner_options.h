#pragma once
// Reads one tuner's `--tuner-opt key=value` pairs. Keys left unread are an error, so a typo
// is reported instead of silently running with a default.
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace tt {

using TunerOptionMap = std::map<std::string, std::string>;

// Range checks shared by the tuners' option structs; each throws UserError naming the tuner
// and the option: "<tuner> option <key> must ...".
void RequireAtLeastOne(std::string_view tuner, std::string_view key, size_t value);
void RequireProbability(std::string_view tuner, std::string_view key, double value);  // in [0, 1]
// A population of `pop_size` configs keeping `elite_num` of them (the genetic tuners).
void RequirePopulation(std::string_view tuner, size_t pop_size, size_t elite_num);

class TunerOptionReader {
 public:
  TunerOptionReader(std::string_view tuner, const TunerOptionMap& options);

  // Each returns `fallback` when the key is absent; throws UserError when the text is no number.
  size_t Count(const std::string& key, size_t fallback);
  double Real(const std::string& key, double fallback);
  // Throws UserError naming the first key that no Count/Real call read.
  void RejectUnknown() const;

 private:
  const std::string* Find(const std::string& key);
  [[noreturn]] void Fail(const std::string& key, std::string_view expected) const;

  std::string tuner_;
  const TunerOptionMap& options_;
  std::set<std::string> read_;
};

}  // namespace tt
