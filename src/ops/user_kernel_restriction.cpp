#include "ops/user_kernel_restriction.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/errors.h"

namespace tt {

struct Restriction::Node {
  enum class Kind { kNumber, kName, kUnary, kBinary, kCompare, kAnd, kOr, kNot };
  Kind kind = Kind::kNumber;
  double number = 0;
  size_t name = 0;
  std::string op;                // kUnary, kBinary; kCompare: one per link
  std::vector<std::string> ops;  // kCompare: the operators between children
  std::vector<std::unique_ptr<Node>> kids;
};

namespace {

using Node = Restriction::Node;

class Parser {
 public:
  Parser(std::string_view text, const std::vector<std::string>& names) : text_(text), names_(names) {}

  std::unique_ptr<Node> Parse() {
    auto root = Or();
    Skip();
    if (pos_ != text_.size()) Fail("unexpected '" + std::string(text_.substr(pos_, 1)) + "'");
    return root;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw UserError("restriction \"" + std::string(text_) + "\": " + why + " at character " + std::to_string(pos_ + 1));
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Word(std::string_view word) {
    Skip();
    if (text_.substr(pos_, word.size()) != word) return false;
    const size_t end = pos_ + word.size();
    if (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) return false;
    pos_ = end;
    return true;
  }
  bool Symbol(std::string_view symbol) {
    Skip();
    if (text_.substr(pos_, symbol.size()) != symbol) return false;
    pos_ += symbol.size();
    return true;
  }
  static std::unique_ptr<Node> Make(Node::Kind kind, std::string op = {}) {
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->op = std::move(op);
    return node;
  }

  std::unique_ptr<Node> Or() {
    auto left = And();
    while (Word("or") || Symbol("||")) {
      auto node = Make(Node::Kind::kOr);
      node->kids.push_back(std::move(left));
      node->kids.push_back(And());
      left = std::move(node);
    }
    return left;
  }
  std::unique_ptr<Node> And() {
    auto left = Not();
    while (Word("and") || Symbol("&&")) {
      auto node = Make(Node::Kind::kAnd);
      node->kids.push_back(std::move(left));
      node->kids.push_back(Not());
      left = std::move(node);
    }
    return left;
  }
  std::unique_ptr<Node> Not() {
    if (Word("not")) {
      auto node = Make(Node::Kind::kNot);
      node->kids.push_back(Not());
      return node;
    }
    return Compare();
  }
  std::optional<std::string> CompareOp() {
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"})
      if (Symbol(op)) return std::string(op);
    return std::nullopt;
  }
  std::unique_ptr<Node> Compare() {
    auto first = Sum();
    auto op = CompareOp();
    if (!op) return first;
    auto node = Make(Node::Kind::kCompare);
    node->kids.push_back(std::move(first));
    while (op) {
      node->ops.push_back(*op);
      node->kids.push_back(Sum());
      op = CompareOp();
    }
    return node;
  }
  std::unique_ptr<Node> Binary(std::string op, std::unique_ptr<Node> left, std::unique_ptr<Node> right) {
    auto node = Make(Node::Kind::kBinary, std::move(op));
    node->kids.push_back(std::move(left));
    node->kids.push_back(std::move(right));
    return node;
  }
  std::unique_ptr<Node> Sum() {
    auto left = Product();
    for (;;) {
      if (Symbol("+"))
        left = Binary("+", std::move(left), Product());
      else if (Symbol("-"))
        left = Binary("-", std::move(left), Product());
      else
        return left;
    }
  }
  std::unique_ptr<Node> Product() {
    auto left = Unary();
    for (;;) {
      Skip();
      if (text_.substr(pos_, 2) == "**") return left;  // belongs to Power
      if (Symbol("//"))
        left = Binary("//", std::move(left), Unary());
      else if (Symbol("*"))
        left = Binary("*", std::move(left), Unary());
      else if (Symbol("/"))
        left = Binary("/", std::move(left), Unary());
      else if (Symbol("%"))
        left = Binary("%", std::move(left), Unary());
      else
        return left;
    }
  }
  std::unique_ptr<Node> Unary() {
    if (Symbol("-")) {
      auto node = Make(Node::Kind::kUnary, "-");
      node->kids.push_back(Unary());
      return node;
    }
    if (Symbol("+")) return Unary();
    return Power();
  }
  std::unique_ptr<Node> Power() {
    auto base = Atom();
    if (Symbol("**")) return Binary("**", std::move(base), Unary());
    return base;
  }
  std::unique_ptr<Node> Atom() {
    Skip();
    if (pos_ >= text_.size()) Fail("the expression ends early");
    if (Symbol("(")) {
      auto inner = Or();
      if (!Symbol(")")) Fail("')' expected");
      return inner;
    }
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const std::string rest(text_.substr(pos_));
      char* end = nullptr;
      const double value = std::strtod(rest.c_str(), &end);
      if (end == rest.c_str()) Fail("a number expected");
      pos_ += static_cast<size_t>(end - rest.c_str());
      auto node = Make(Node::Kind::kNumber);
      node->number = value;
      return node;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string name(text_.substr(start, pos_ - start));
      auto node = Make(Node::Kind::kNumber);
      if (name == "True" || name == "False") {
        node->number = name == "True" ? 1 : 0;
        return node;
      }
      const auto it = std::find(names_.begin(), names_.end(), name);
      if (it == names_.end()) {
        pos_ = start;
        Fail("'" + name + "' is not a tunable parameter");
      }
      node->kind = Node::Kind::kName;
      node->name = static_cast<size_t>(it - names_.begin());
      return node;
    }
    Fail("unexpected '" + std::string(1, c) + "'");
  }

  std::string_view text_;
  const std::vector<std::string>& names_;
  size_t pos_ = 0;
};

bool CompareHolds(const std::string& op, double a, double b) {
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<=") return a <= b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  return a > b;
}

double Apply(const std::string& op, double a, double b) {
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") return a / b;
  if (op == "//") return std::floor(a / b);
  if (op == "%") return b == 0 ? NAN : a - b * std::floor(a / b);  // Python's sign: that of b
  return std::pow(a, b);
}

double Eval(const Node& n, const std::vector<double>& v) {
  switch (n.kind) {
    case Node::Kind::kNumber:
      return n.number;
    case Node::Kind::kName:
      return v.at(n.name);
    case Node::Kind::kUnary:
      return -Eval(*n.kids[0], v);
    case Node::Kind::kBinary:
      return Apply(n.op, Eval(*n.kids[0], v), Eval(*n.kids[1], v));
    case Node::Kind::kCompare: {
      double left = Eval(*n.kids[0], v);
      for (size_t i = 0; i < n.ops.size(); ++i) {
        const double right = Eval(*n.kids[i + 1], v);
        if (!CompareHolds(n.ops[i], left, right)) return 0;
        left = right;
      }
      return 1;
    }
    case Node::Kind::kAnd:
      return Eval(*n.kids[0], v) != 0 && Eval(*n.kids[1], v) != 0 ? 1 : 0;
    case Node::Kind::kOr:
      return Eval(*n.kids[0], v) != 0 || Eval(*n.kids[1], v) != 0 ? 1 : 0;
    case Node::Kind::kNot:
      return Eval(*n.kids[0], v) != 0 ? 0 : 1;
  }
  return 0;
}

}  // namespace

Restriction::Restriction(std::string_view text, const std::vector<std::string>& names)
    : text_(text), root_(Parser(text, names).Parse()) {}
Restriction::~Restriction() = default;
Restriction::Restriction(Restriction&&) noexcept = default;
Restriction& Restriction::operator=(Restriction&&) noexcept = default;

double Restriction::Evaluate(const std::vector<double>& values) const { return Eval(*root_, values); }

bool Restriction::Holds(const std::vector<double>& values) const {
  const double value = Evaluate(values);
  return value != 0 && !std::isnan(value);
}

}  // namespace tt
