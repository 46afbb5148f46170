#pragma once
// A tuner's `--tuner-opt key=value` options as one table per options struct: each row names a
// key, the member it sets, the values it accepts and what it means. The same table parses,
// range-checks and documents (`tensortune tuners`), so the three cannot drift apart. Keys
// nobody reads are an error, so a typo is reported instead of running with a default.
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace tt {

using TunerOptionMap = std::map<std::string, std::string>;

// The numbers an option accepts: an interval, each end open or closed.
struct OptionRange {
  double low = 0;
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false;
  bool high_open = false;

  bool Contains(double value) const;
  std::string Describe() const;  // "at least 1", "in [0, 1]", "in (0, 1)"
};

inline constexpr OptionRange kAtLeastOne{1};
inline constexpr OptionRange kProbability{0, 1};
inline constexpr OptionRange kNonNegative{};

template <typename Options>
struct OptionField {
  std::string_view key;
  // size_t: a count; double: a number; bool: 0 or 1; std::string: one of `choices`.
  std::variant<size_t Options::*, double Options::*, bool Options::*, std::string Options::*> member;
  std::string_view help;
  OptionRange range = kNonNegative;
  std::vector<std::string_view> choices = {};
};

template <typename Options>
using OptionTable = std::vector<OptionField<Options>>;

template <typename Member>
struct MemberValue;
template <typename Options, typename Value>
struct MemberValue<Value Options::*> {
  using type = Value;
};

// One documented option: what `tensortune tuners` prints.
struct OptionDoc {
  std::string key;
  std::string values;  // "integer, at least 1", "0 or 1", "rank or reg"
  std::string default_value;
  std::string help;
};

// Reads text values by key and remembers which keys were read.
class TunerOptionReader {
 public:
  TunerOptionReader(std::string_view tuner, const TunerOptionMap& options);

  // Each returns false when the key is absent; throws UserError when the text is no such value.
  bool Count(const std::string& key, size_t& value);
  bool Real(const std::string& key, double& value);
  bool Switch(const std::string& key, bool& value);  // "0" or "1"
  bool Choice(const std::string& key, const std::vector<std::string_view>& choices, std::string& value);
  // Throws UserError naming the first key that was not read.
  void RejectUnknown() const;

 private:
  const std::string* Find(const std::string& key);
  [[noreturn]] void Fail(const std::string& key, std::string_view expected) const;

  std::string tuner_;
  const TunerOptionMap& options_;
  std::set<std::string> read_;
};

// Throws UserError "<tuner> option <key> must be <range>, got <value>" when out of range.
void RequireInRange(std::string_view tuner, std::string_view key, const OptionRange& range, double value);
// A population of `pop_size` configs keeping `elite_num` of them (the genetic tuners).
void RequirePopulation(std::string_view tuner, size_t pop_size, size_t elite_num);

// Every numeric field of `options` within its range.
template <typename Options>
void CheckOptionRanges(std::string_view tuner, const OptionTable<Options>& table, const Options& options) {
  for (const auto& field : table) {
    if (const auto count = std::get_if<size_t Options::*>(&field.member))
      RequireInRange(tuner, field.key, field.range, static_cast<double>(options.**count));
    else if (const auto real = std::get_if<double Options::*>(&field.member))
      RequireInRange(tuner, field.key, field.range, options.**real);
  }
}

// `base` with the given keys set; throws UserError for an unknown key or a bad value. The
// caller validates what spans fields (Options::Validate).
template <typename Options>
Options ParseOptionTable(std::string_view tuner, const OptionTable<Options>& table, const TunerOptionMap& given,
                         Options base = {}) {
  TunerOptionReader reader(tuner, given);
  for (const auto& field : table) {
    const std::string key(field.key);
    std::visit(
        [&](auto member) {
          using Value = typename MemberValue<decltype(member)>::type;
          Value& value = base.*member;
          if constexpr (std::is_same_v<Value, size_t>)
            reader.Count(key, value);
          else if constexpr (std::is_same_v<Value, double>)
            reader.Real(key, value);
          else if constexpr (std::is_same_v<Value, bool>)
            reader.Switch(key, value);
          else
            reader.Choice(key, field.choices, value);
        },
        field.member);
  }
  reader.RejectUnknown();
  CheckOptionRanges(tuner, table, base);
  return base;
}

std::string OptionNumberText(double value);  // shortest text that reads back the same

template <typename Options>
std::vector<OptionDoc> DocumentOptionTable(const OptionTable<Options>& table, const Options& defaults = {}) {
  std::vector<OptionDoc> docs;
  for (const auto& field : table) {
    OptionDoc doc{std::string(field.key), "", "", std::string(field.help)};
    std::visit(
        [&](auto member) {
          using Value = typename MemberValue<decltype(member)>::type;
          const Value& value = defaults.*member;
          if constexpr (std::is_same_v<Value, size_t>) {
            doc.values = "integer, " + field.range.Describe();
            doc.default_value = std::to_string(value);
          } else if constexpr (std::is_same_v<Value, double>) {
            doc.values = "number, " + field.range.Describe();
            doc.default_value = OptionNumberText(value);
          } else if constexpr (std::is_same_v<Value, bool>) {
            doc.values = "0 or 1";
            doc.default_value = value ? "1" : "0";
          } else {
            for (const auto choice : field.choices) {
              if (!doc.values.empty()) doc.values += " or ";
              doc.values += choice;
            }
            doc.default_value = value;
          }
        },
        field.member);
    docs.push_back(std::move(doc));
  }
  return docs;
}

}  // namespace tt
