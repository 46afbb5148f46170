#include "tuners/tuner_options.h"

#include <charconv>
#include <cmath>
#include <string>

#include "core/errors.h"

namespace tt {
namespace {

template <typename T>
bool ParseWhole(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

[[noreturn]] void Refuse(std::string_view tuner, std::string_view key, const std::string& problem) {
  throw UserError(std::string(tuner) + " option " + std::string(key) + " " + problem);
}

}  // namespace

void RequireAtLeastOne(std::string_view tuner, std::string_view key, size_t value) {
  if (value < 1) Refuse(tuner, key, "must be at least 1");
}

void RequireProbability(std::string_view tuner, std::string_view key, double value) {
  if (!(value >= 0 && value <= 1)) Refuse(tuner, key, "must lie in [0, 1], got " + std::to_string(value));
}

void RequirePopulation(std::string_view tuner, size_t pop_size, size_t elite_num) {
  RequireAtLeastOne(tuner, "pop_size", pop_size);
  if (elite_num > pop_size) Refuse(tuner, "elite_num", "must not exceed pop_size");
}

TunerOptionReader::TunerOptionReader(std::string_view tuner, const TunerOptionMap& options)
    : tuner_(tuner), options_(options) {}

const std::string* TunerOptionReader::Find(const std::string& key) {
  read_.insert(key);
  const auto it = options_.find(key);
  return it == options_.end() ? nullptr : &it->second;
}

void TunerOptionReader::Fail(const std::string& key, std::string_view expected) const {
  throw UserError("tuner option " + key + "='" + options_.at(key) + "' for tuner '" + tuner_ +
                  "' is not " + std::string(expected));
}

size_t TunerOptionReader::Count(const std::string& key, size_t fallback) {
  const std::string* text = Find(key);
  if (!text) return fallback;
  size_t value = 0;
  if (!ParseWhole(*text, value)) Fail(key, "a non-negative integer");
  return value;
}

double TunerOptionReader::Real(const std::string& key, double fallback) {
  const std::string* text = Find(key);
  if (!text) return fallback;
  double value = 0;
  if (!ParseWhole(*text, value) || !std::isfinite(value)) Fail(key, "a number");
  return value;
}

void TunerOptionReader::RejectUnknown() const {
  for (const auto& [key, value] : options_) {
    if (read_.count(key)) continue;
    std::string known;
    for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
    throw UserError("unknown tuner option '" + key + "' for tuner '" + tuner_ + "' (known: " +
                    (known.empty() ? "none" : known) + ")");
  }
}

}  // namespace tt
