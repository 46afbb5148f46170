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

}  // namespace

std::string OptionNumberText(double value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

bool OptionRange::Contains(double value) const {
  if (std::isnan(value)) return false;
  const bool above = low_open ? value > low : value >= low;
  const bool below = high_open ? value < high : value <= high;
  return above && below;
}

std::string OptionRange::Describe() const {
  if (std::isinf(high)) return (low_open ? "above " : "at least ") + OptionNumberText(low);
  return std::string("in ") + (low_open ? "(" : "[") + OptionNumberText(low) + ", " + OptionNumberText(high) +
         (high_open ? ")" : "]");
}

void RequireInRange(std::string_view tuner, std::string_view key, const OptionRange& range, double value) {
  if (range.Contains(value)) return;
  throw UserError(std::string(tuner) + " option " + std::string(key) + " must be " + range.Describe() + ", got " +
                  OptionNumberText(value));
}

void RequirePopulation(std::string_view tuner, size_t pop_size, size_t elite_num) {
  RequireInRange(tuner, "pop_size", kAtLeastOne, static_cast<double>(pop_size));
  if (elite_num > pop_size) throw UserError(std::string(tuner) + " option elite_num must not exceed pop_size");
}

TunerOptionReader::TunerOptionReader(std::string_view tuner, const TunerOptionMap& options)
    : tuner_(tuner), options_(options) {}

const std::string* TunerOptionReader::Find(const std::string& key) {
  read_.insert(key);
  const auto it = options_.find(key);
  return it == options_.end() ? nullptr : &it->second;
}

void TunerOptionReader::Fail(const std::string& key, std::string_view expected) const {
  throw UserError("tuner option " + key + "='" + options_.at(key) + "' for tuner '" + tuner_ + "' is not " +
                  std::string(expected));
}

bool TunerOptionReader::Count(const std::string& key, size_t& value) {
  const std::string* text = Find(key);
  if (!text) return false;
  if (!ParseWhole(*text, value)) Fail(key, "a non-negative integer");
  return true;
}

bool TunerOptionReader::Real(const std::string& key, double& value) {
  const std::string* text = Find(key);
  if (!text) return false;
  if (!ParseWhole(*text, value) || !std::isfinite(value)) Fail(key, "a number");
  return true;
}

bool TunerOptionReader::Switch(const std::string& key, bool& value) {
  const std::string* text = Find(key);
  if (!text) return false;
  if (*text != "0" && *text != "1") Fail(key, "0 or 1");
  value = *text == "1";
  return true;
}

bool TunerOptionReader::Choice(const std::string& key, const std::vector<std::string_view>& choices,
                               std::string& value) {
  const std::string* text = Find(key);
  if (!text) return false;
  std::string known;
  for (const auto choice : choices) {
    if (*text == choice) {
      value = *text;
      return true;
    }
    if (!known.empty()) known += " or ";
    known += choice;
  }
  Fail(key, known);
}

void TunerOptionReader::RejectUnknown() const {
  for (const auto& [key, value] : options_) {
    if (read_.count(key)) continue;
    std::string known;
    for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
    throw UserError("unknown tuner option '" + key + "' for tuner '" + tuner_ +
                    "' (known: " + (known.empty() ? "none" : known) + ")");
  }
}

}  // namespace tt
