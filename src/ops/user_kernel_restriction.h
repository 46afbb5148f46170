#pragma once
// Kernel Tuner's restrictions: Python expressions over the tunable parameters, such as
// "block_size_x==block_size_y*tile_size_y" or "block_size_x*block_size_y<=1024 and tile>1".
// Numbers, names, parentheses, + - * / // % **, comparisons (chained as in Python), and, or,
// not, && and ||, True and False.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tt {

class Restriction {
 public:
  // Throws UserError naming the problem (a syntax error, a name that is not in `names`).
  Restriction(std::string_view text, const std::vector<std::string>& names);
  ~Restriction();
  Restriction(Restriction&&) noexcept;
  Restriction& operator=(Restriction&&) noexcept;

  const std::string& text() const { return text_; }
  // `values[i]` is the value of names[i]; true when the expression holds (is not zero).
  bool Holds(const std::vector<double>& values) const;
  // The expression's value (comparisons give 1 or 0).
  double Evaluate(const std::vector<double>& values) const;

  struct Node;

 private:
  std::string text_;
  std::unique_ptr<Node> root_;
};

}  // namespace tt
