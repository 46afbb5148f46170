#pragma once
// A knob is one tunable parameter: its values and the graph that says which values are
// neighbours (OpEvo, section 3). Values are small integer tuples so that every knob kind
// shares one representation: a split is its factors, a permutation its order, a discrete or
// categorical knob a single number.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tt {

using KnobValue = std::vector<int64_t>;

// Whether a knob's number is a power of two (block widths, vector counts).
inline bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

enum class KnobKind { kSplit, kPermutation, kDiscrete, kCategorical };
const char* ToString(KnobKind kind);

class Knob {
 public:
  // Ordered tuples of `parts` positive integers whose product is `extent`; neighbours move one
  // prime factor from one position to another.
  static Knob Split(std::string name, int64_t extent, int parts);
  // Split's values plus, for each of `rounded` (extents rounded up past `extent`), its
  // factorizations whose tile (the product of all factors but the first) is larger than the
  // rounding: the first factor is then ceil(extent / tile), a count of tiles whose last one is
  // partial, and no tile lies wholly past the extent. Every tile shape maps to one value.
  // Values stay in lexicographic order (value(0) is still [1, ..., 1, extent]); neighbours
  // move one prime factor, within the values of one product.
  static Knob SplitWithTail(std::string name, int64_t extent, int parts, const std::vector<int64_t>& rounded);
  // Orderings of 0..n-1; neighbours differ by one transposition.
  static Knob Permutation(std::string name, int n);
  // Ordered numbers (sorted here); neighbours are the next smaller and next larger value.
  static Knob Discrete(std::string name, std::vector<int64_t> values);
  // Unordered choices; every value neighbours every other.
  static Knob Categorical(std::string name, std::vector<int64_t> values);

  const std::string& name() const { return name_; }
  KnobKind kind() const { return kind_; }
  size_t size() const { return values_.size(); }
  const KnobValue& value(size_t i) const { return values_[i]; }
  const std::vector<uint32_t>& neighbours(size_t i) const { return neighbours_[i]; }
  std::optional<uint32_t> Find(const KnobValue& value) const;
  // The same knob (name, kind, key text) held at one of its values; throws
  // std::invalid_argument when `value` is not one of them.
  Knob Pinned(const KnobValue& value) const;

 private:
  Knob(std::string name, KnobKind kind, std::vector<KnobValue> values);
  void LinkSplitNeighbours();
  void LinkByPredicate(bool (*adjacent)(const KnobValue&, const KnobValue&));

  std::string name_;
  KnobKind kind_;
  std::vector<KnobValue> values_;
  std::vector<std::vector<uint32_t>> neighbours_;
  std::map<KnobValue, uint32_t> index_;
};

}  // namespace tt
