#include "networks/onnx_fold.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_set>

namespace tt::onnx_import {
namespace {

using T = onnx::TensorProto;
using Dims = std::vector<int64_t>;

std::optional<Dims> Broadcast(const std::vector<const ConstTensor*>& inputs) {
  Dims out;
  for (const auto* in : inputs) {
    if (in->dims.size() > out.size()) out.insert(out.begin(), in->dims.size() - out.size(), 1);
    for (size_t i = 0; i < in->dims.size(); ++i) {
      int64_t& o = out[out.size() - in->dims.size() + i];
      const int64_t d = in->dims[i];
      if (o == 1)
        o = d;
      else if (d != 1 && d != o)
        return std::nullopt;
    }
  }
  return out;
}

// The flat index into `dims` (broadcast to `out`) of the element at out's flat index `flat`.
size_t BroadcastIndex(size_t flat, const Dims& out, const Dims& dims) {
  size_t index = 0, stride = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t axis = out.size() - 1 - i;
    const size_t coordinate = flat % static_cast<size_t>(out[axis]);
    flat /= static_cast<size_t>(out[axis]);
    if (i < dims.size()) {
      const size_t d = static_cast<size_t>(dims[dims.size() - 1 - i]);
      index += (d == 1 ? 0 : coordinate) * stride;
      stride *= d;
    }
  }
  return index;
}

std::optional<ConstTensor> Elementwise(const std::vector<const ConstTensor*>& inputs, int32_t type,
                                       const std::function<std::optional<double>(const std::vector<double>&)>& fn) {
  const auto dims = Broadcast(inputs);
  if (!dims || Elements(*dims) > kMaxFoldedElements) return std::nullopt;
  ConstTensor out{type, *dims, {}};
  const int64_t n = Elements(*dims);
  std::vector<double> args(inputs.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < inputs.size(); ++k)
      args[k] = inputs[k]->data[BroadcastIndex(static_cast<size_t>(i), *dims, inputs[k]->dims)];
    const auto v = fn(args);
    if (!v) return std::nullopt;
    out.data.push_back(Convert(*v, type));
  }
  return out;
}

const onnx::AttributeProto* Attr(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t IntAttr(const onnx::NodeProto& node, const char* name, int64_t fallback) {
  const auto* a = Attr(node, name);
  return a ? a->i() : fallback;
}
std::optional<Dims> IntsAttr(const onnx::NodeProto& node, const char* name) {
  const auto* a = Attr(node, name);
  if (!a) return std::nullopt;
  return Dims(a->ints().begin(), a->ints().end());
}

Dims AsInts(const ConstTensor& t) {
  Dims out;
  for (double v : t.data) out.push_back(AsInt(v));
  return out;
}

// An axis in [0, rank), or nullopt when out of range.
std::optional<int64_t> Axis(int64_t axis, int64_t rank) {
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return axis;
}

std::optional<ConstTensor> Gather(const ConstTensor& data, const ConstTensor& indices, int64_t axis_attr) {
  const auto axis = Axis(axis_attr, static_cast<int64_t>(data.dims.size()));
  if (!axis) return std::nullopt;
  Dims dims(data.dims.begin(), data.dims.begin() + *axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + *axis + 1, data.dims.end());
  const int64_t outer = Elements(Dims(data.dims.begin(), data.dims.begin() + *axis));
  const int64_t extent = data.dims[static_cast<size_t>(*axis)];
  const int64_t inner = Elements(Dims(data.dims.begin() + *axis + 1, data.dims.end()));
  if (Elements(dims) > kMaxFoldedElements) return std::nullopt;
  ConstTensor out{data.type, dims, {}};
  for (int64_t o = 0; o < outer; ++o)
    for (double raw : indices.data) {
      int64_t i = AsInt(raw);
      if (i < 0) i += extent;
      if (i < 0 || i >= extent) return std::nullopt;
      for (int64_t k = 0; k < inner; ++k)
        out.data.push_back(data.data[static_cast<size_t>((o * extent + i) * inner + k)]);
    }
  return out;
}

std::optional<ConstTensor> Concat(const std::vector<const ConstTensor*>& inputs, int64_t axis_attr) {
  if (inputs.empty()) return std::nullopt;
  const Dims& first = inputs.front()->dims;
  const auto axis = Axis(axis_attr, static_cast<int64_t>(first.size()));
  if (!axis) return std::nullopt;
  Dims dims = first;
  dims[static_cast<size_t>(*axis)] = 0;
  for (const auto* in : inputs) {
    if (in->dims.size() != first.size()) return std::nullopt;
    for (size_t i = 0; i < first.size(); ++i)
      if (static_cast<int64_t>(i) != *axis && in->dims[i] != first[i]) return std::nullopt;
    dims[static_cast<size_t>(*axis)] += in->dims[static_cast<size_t>(*axis)];
  }
  if (Elements(dims) > kMaxFoldedElements) return std::nullopt;
  const int64_t outer = Elements(Dims(first.begin(), first.begin() + *axis));
  const int64_t inner = Elements(Dims(first.begin() + *axis + 1, first.end()));
  ConstTensor out{inputs.front()->type, dims, {}};
  for (int64_t o = 0; o < outer; ++o)
    for (const auto* in : inputs) {
      const int64_t chunk = in->dims[static_cast<size_t>(*axis)] * inner;
      out.data.insert(out.data.end(), in->data.begin() + o * chunk, in->data.begin() + (o + 1) * chunk);
    }
  return out;
}

std::optional<ConstTensor> Slice(const ConstTensor& data, Dims starts, Dims ends, std::optional<Dims> axes,
                                 std::optional<Dims> steps) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  if (!axes) {
    axes = Dims(starts.size());
    std::iota(axes->begin(), axes->end(), 0);
  }
  if (!steps) steps = Dims(starts.size(), 1);
  if (ends.size() != starts.size() || axes->size() != starts.size() || steps->size() != starts.size())
    return std::nullopt;
  std::vector<Dims> picks(static_cast<size_t>(rank));
  for (int64_t a = 0; a < rank; ++a) {
    picks[static_cast<size_t>(a)].resize(static_cast<size_t>(data.dims[static_cast<size_t>(a)]));
    std::iota(picks[static_cast<size_t>(a)].begin(), picks[static_cast<size_t>(a)].end(), 0);
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const auto axis = Axis((*axes)[i], rank);
    const int64_t step = (*steps)[i];
    if (!axis || step == 0) return std::nullopt;
    const int64_t extent = data.dims[static_cast<size_t>(*axis)];
    auto clamp = [&](int64_t v, bool start) {
      if (v < 0) v = std::max<int64_t>(v, -extent - 1) + extent;
      return step > 0 ? std::clamp<int64_t>(v, 0, extent) : std::clamp<int64_t>(v, -1, extent - (start ? 1 : 0));
    };
    const int64_t begin = clamp(starts[i], true), end = clamp(ends[i], false);
    Dims pick;
    for (int64_t v = begin; step > 0 ? v < end : v > end; v += step) pick.push_back(v);
    picks[static_cast<size_t>(*axis)] = pick;
  }
  Dims dims;
  for (const auto& p : picks) dims.push_back(static_cast<int64_t>(p.size()));
  const int64_t n = Elements(dims);
  if (n > kMaxFoldedElements) return std::nullopt;
  ConstTensor out{data.type, dims, {}};
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, index = 0, stride = 1;
    for (int64_t a = rank - 1; a >= 0; --a) {
      const auto& p = picks[static_cast<size_t>(a)];
      index += p[static_cast<size_t>(rest % static_cast<int64_t>(p.size()))] * stride;
      rest /= static_cast<int64_t>(p.size());
      stride *= data.dims[static_cast<size_t>(a)];
    }
    out.data.push_back(data.data[static_cast<size_t>(index)]);
  }
  return out;
}

std::optional<ConstTensor> Reduce(const std::string& op, const ConstTensor& data, std::optional<Dims> axes,
                                  bool keepdims, bool noop_with_empty_axes) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  if (axes && axes->empty() && noop_with_empty_axes) return data;
  std::vector<bool> reduced(static_cast<size_t>(rank), !axes || axes->empty());
  if (axes)
    for (int64_t a : *axes) {
      const auto axis = Axis(a, rank);
      if (!axis) return std::nullopt;
      reduced[static_cast<size_t>(*axis)] = true;
    }
  Dims dims;
  for (int64_t a = 0; a < rank; ++a)
    if (!reduced[static_cast<size_t>(a)])
      dims.push_back(data.dims[static_cast<size_t>(a)]);
    else if (keepdims)
      dims.push_back(1);
  Dims kept_dims;  // the output's dimensions with reduced axes as 1, for indexing
  for (int64_t a = 0; a < rank; ++a)
    kept_dims.push_back(reduced[static_cast<size_t>(a)] ? 1 : data.dims[static_cast<size_t>(a)]);
  const int64_t n = Elements(kept_dims);
  std::vector<double> acc(static_cast<size_t>(n), op == "ReduceProd" ? 1.0 : op == "ReduceSum" ? 0.0 : NAN);
  for (size_t flat = 0; flat < data.data.size(); ++flat) {
    size_t rest = flat, index = 0, stride = 1;
    for (int64_t a = rank - 1; a >= 0; --a) {
      const size_t extent = static_cast<size_t>(data.dims[static_cast<size_t>(a)]);
      const size_t c = rest % extent;
      rest /= extent;
      if (!reduced[static_cast<size_t>(a)]) {
        index += c * stride;
        stride *= extent;
      }
    }
    double& a = acc[index];
    const double v = data.data[flat];
    if (op == "ReduceProd")
      a *= v;
    else if (op == "ReduceSum")
      a += v;
    else if (op == "ReduceMax")
      a = std::isnan(a) ? v : std::max(a, v);
    else
      a = std::isnan(a) ? v : std::min(a, v);
  }
  return ConstTensor{data.type, dims, acc};
}

using Folded = std::optional<std::vector<ConstTensor>>;

// The one output of a node, when it is a small tensor of a supported type.
Folded One(std::optional<ConstTensor> t) {
  if (!t || !Supported(t->type) || static_cast<int64_t>(t->data.size()) != Elements(t->dims) ||
      Elements(t->dims) > kMaxFoldedElements)
    return std::nullopt;
  return std::vector<ConstTensor>{std::move(*t)};
}

// Shape, Size and Constant: computed from known shapes and the node's attributes.
Folded FoldWithoutValues(const onnx::NodeProto& node, const std::string& op, const ShapeLookup& shape_of) {
  if (op == "Shape" || op == "Size") {
    if (node.input_size() < 1) return std::nullopt;
    auto dims = shape_of(node.input(0));
    if (!dims) return std::nullopt;
    if (op == "Size") return One(ConstTensor{T::INT64, {}, {static_cast<double>(Elements(*dims))}});
    const int64_t rank = static_cast<int64_t>(dims->size());
    int64_t start = IntAttr(node, "start", 0), end = IntAttr(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    return One(ConstTensor{T::INT64, {end - start}, std::vector<double>(dims->begin() + start, dims->begin() + end)});
  }
  if (op == "Constant") {
    if (const auto* a = Attr(node, "value")) return One(ReadTensor(a->t()));
    if (const auto* a = Attr(node, "value_int")) return One(ConstTensor{T::INT64, {}, {static_cast<double>(a->i())}});
    if (const auto* a = Attr(node, "value_ints"))
      return One(ConstTensor{T::INT64, {a->ints_size()}, std::vector<double>(a->ints().begin(), a->ints().end())});
    if (const auto* a = Attr(node, "value_float")) return One(ConstTensor{T::FLOAT, {}, {a->f()}});
    if (const auto* a = Attr(node, "value_floats"))
      return One(
          ConstTensor{T::FLOAT, {a->floats_size()}, std::vector<double>(a->floats().begin(), a->floats().end())});
    return std::nullopt;
  }
  return std::nullopt;
}

// Operators that move, select or make integer data (shape arithmetic): Identity to Range.
const std::unordered_set<std::string> kMovement = {"Identity",  "Cast",   "Gather",          "Unsqueeze",
                                                   "Squeeze",   "Concat", "Slice",           "Reshape",
                                                   "Transpose", "Expand", "ConstantOfShape", "Range"};

// `in`: the node's input values, the first one known (a left-out optional input is null).
Folded FoldMovement(const onnx::NodeProto& node, const std::string& op, const std::vector<const ConstTensor*>& in) {
  auto input = [&](size_t i) -> const ConstTensor* { return i < in.size() ? in[i] : nullptr; };
  const ConstTensor& x = *input(0);
  if (op == "Identity") return One(x);
  if (op == "Cast") {
    ConstTensor out = x;
    out.type = static_cast<int32_t>(IntAttr(node, "to", 0));
    if (!Supported(out.type)) return std::nullopt;
    for (double& v : out.data) v = Convert(v, out.type);
    return One(out);
  }
  if (op == "Gather") return input(1) ? One(Gather(x, *input(1), IntAttr(node, "axis", 0))) : std::nullopt;
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::optional<Dims> axes = input(1) ? std::optional(AsInts(*input(1))) : IntsAttr(node, "axes");
    ConstTensor out = x;
    if (op == "Squeeze") {
      Dims dims;
      const int64_t rank = static_cast<int64_t>(x.dims.size());
      for (int64_t a = 0; a < rank; ++a) {
        const bool listed =
            axes && std::any_of(axes->begin(), axes->end(), [&](int64_t v) { return Axis(v, rank) == a; });
        if (axes ? !listed : x.dims[static_cast<size_t>(a)] != 1)
          dims.push_back(x.dims[static_cast<size_t>(a)]);
        else if (x.dims[static_cast<size_t>(a)] != 1)
          return std::nullopt;
      }
      out.dims = dims;
      return One(out);
    }
    if (!axes) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(x.dims.size() + axes->size());
    Dims normalized;
    for (int64_t a : *axes) {
      const auto axis = Axis(a, rank);
      if (!axis) return std::nullopt;
      normalized.push_back(*axis);
    }
    std::sort(normalized.begin(), normalized.end());
    out.dims.clear();
    size_t next = 0;
    for (int64_t a = 0; a < rank; ++a)
      if (std::binary_search(normalized.begin(), normalized.end(), a))
        out.dims.push_back(1);
      else if (next < x.dims.size())
        out.dims.push_back(x.dims[next++]);
    return One(out);
  }
  if (op == "Concat") {
    for (const auto* t : in)
      if (!t) return std::nullopt;
    return One(Concat(in, IntAttr(node, "axis", 0)));
  }
  if (op == "Slice") {
    if (input(1) && input(2))
      return One(Slice(x, AsInts(*input(1)), AsInts(*input(2)),
                       input(3) ? std::optional(AsInts(*input(3))) : std::nullopt,
                       input(4) ? std::optional(AsInts(*input(4))) : std::nullopt));
    const auto starts = IntsAttr(node, "starts"), ends = IntsAttr(node, "ends");  // opsets before 10
    if (!starts || !ends) return std::nullopt;
    return One(Slice(x, *starts, *ends, IntsAttr(node, "axes"), std::nullopt));
  }
  if (op == "Reshape") {
    if (!input(1)) return std::nullopt;
    Dims dims = AsInts(*input(1));
    const bool allow_zero = IntAttr(node, "allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 0 && !allow_zero) {
        if (i >= x.dims.size()) return std::nullopt;
        dims[i] = x.dims[i];
      }
      if (dims[i] == -1) {
        if (infer >= 0) return std::nullopt;
        infer = static_cast<int64_t>(i);
      } else if (dims[i] < 0) {
        return std::nullopt;
      } else {
        known *= dims[i];
      }
    }
    const int64_t n = static_cast<int64_t>(x.data.size());
    if (infer >= 0) {
      if (known == 0 || n % known != 0) return std::nullopt;
      dims[static_cast<size_t>(infer)] = n / known;
    }
    ConstTensor out = x;
    out.dims = dims;
    return One(out);
  }
  if (op == "Transpose") {
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    Dims perm = IntsAttr(node, "perm").value_or(Dims{});
    if (perm.empty())
      for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
    if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
    Dims dims, strides(static_cast<size_t>(rank), 1);
    for (int64_t a = rank - 2; a >= 0; --a)
      strides[static_cast<size_t>(a)] = strides[static_cast<size_t>(a + 1)] * x.dims[static_cast<size_t>(a + 1)];
    for (int64_t p : perm) {
      if (p < 0 || p >= rank) return std::nullopt;
      dims.push_back(x.dims[static_cast<size_t>(p)]);
    }
    ConstTensor out{x.type, dims, {}};
    for (size_t flat = 0; flat < x.data.size(); ++flat) {
      size_t rest = flat, index = 0;
      for (int64_t a = rank - 1; a >= 0; --a) {
        const size_t extent = static_cast<size_t>(dims[static_cast<size_t>(a)]);
        index += (rest % extent) * static_cast<size_t>(strides[static_cast<size_t>(perm[static_cast<size_t>(a)])]);
        rest /= extent;
      }
      out.data.push_back(x.data[index]);
    }
    return One(out);
  }
  if (op == "Expand") {
    if (!input(1)) return std::nullopt;
    ConstTensor shape{x.type, AsInts(*input(1)), {}};
    shape.data.assign(static_cast<size_t>(std::min<int64_t>(Elements(shape.dims), kMaxFoldedElements + 1)), 0);
    return One(Elementwise({&x, &shape}, x.type, [](const std::vector<double>& a) { return a[0]; }));
  }
  if (op == "ConstantOfShape") {
    const Dims dims = AsInts(x);
    if (Elements(dims) > kMaxFoldedElements) return std::nullopt;
    ConstTensor fill{T::FLOAT, {}, {0.0}};
    if (const auto* a = Attr(node, "value")) {
      const auto v = ReadTensor(a->t());
      if (!v || v->data.size() != 1) return std::nullopt;
      fill = *v;
    }
    return One(ConstTensor{fill.type, dims, std::vector<double>(static_cast<size_t>(Elements(dims)), fill.data[0])});
  }
  if (op == "Range") {
    if (!input(1) || !input(2) || input(1)->data.size() != 1 || input(2)->data.size() != 1 || x.data.size() != 1)
      return std::nullopt;
    const double start = x.data[0], limit = input(1)->data[0], delta = input(2)->data[0];
    if (delta == 0) return std::nullopt;
    const double count = std::max(std::ceil((limit - start) / delta), 0.0);
    if (count > static_cast<double>(kMaxFoldedElements)) return std::nullopt;
    ConstTensor out{x.type, {static_cast<int64_t>(count)}, {}};
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i)
      out.data.push_back(start + static_cast<double>(i) * delta);
    return One(out);
  }
  return std::nullopt;
}

// Reductions and elementwise arithmetic, comparisons and logic.
Folded FoldArithmetic(const onnx::NodeProto& node, const std::string& op, const std::vector<const ConstTensor*>& in) {
  auto input = [&](size_t i) -> const ConstTensor* { return i < in.size() ? in[i] : nullptr; };
  const ConstTensor& x = *input(0);
  if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") {
    std::optional<Dims> axes = input(1) ? std::optional(AsInts(*input(1))) : IntsAttr(node, "axes");
    return One(Reduce(op, x, axes, IntAttr(node, "keepdims", 1) != 0, IntAttr(node, "noop_with_empty_axes", 0) != 0));
  }
  const bool integer = IsInteger(x.type);
  using Args = std::vector<double>;
  using Fn = std::function<std::optional<double>(const Args&)>;
  static const std::unordered_map<std::string, int> kArity = {{"Add", 2},
                                                              {"Sub", 2},
                                                              {"Mul", 2},
                                                              {"Div", 2},
                                                              {"Mod", 2},
                                                              {"Pow", 2},
                                                              {"Equal", 2},
                                                              {"Less", 2},
                                                              {"Greater", 2},
                                                              {"LessOrEqual", 2},
                                                              {"GreaterOrEqual", 2},
                                                              {"And", 2},
                                                              {"Or", 2},
                                                              {"Where", 3},
                                                              {"Neg", 1},
                                                              {"Abs", 1},
                                                              {"Not", 1},
                                                              {"Floor", 1},
                                                              {"Ceil", 1},
                                                              {"Sqrt", 1},
                                                              {"Reciprocal", 1}};
  const auto arity = kArity.find(op);
  if (arity == kArity.end() && op != "Min" && op != "Max") return std::nullopt;
  const size_t count = arity == kArity.end() ? in.size() : static_cast<size_t>(arity->second);
  if (in.size() < count || count == 0) return std::nullopt;
  std::vector<const ConstTensor*> args(in.begin(), in.begin() + static_cast<ptrdiff_t>(count));
  for (const auto* a : args)
    if (!a) return std::nullopt;
  const bool comparison = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                          op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Not";
  const int32_t type = comparison ? T::BOOL : op == "Where" ? args[1]->type : x.type;
  const Fn fn = [&]() -> Fn {
    if (op == "Add") return [](const Args& a) { return a[0] + a[1]; };
    if (op == "Sub") return [](const Args& a) { return a[0] - a[1]; };
    if (op == "Mul") return [](const Args& a) { return a[0] * a[1]; };
    if (op == "Div")
      return [integer](const Args& a) -> std::optional<double> {
        if (a[1] == 0) return std::nullopt;
        return integer ? std::trunc(a[0] / a[1]) : a[0] / a[1];
      };
    if (op == "Mod")
      return [fmod = IntAttr(node, "fmod", 0) != 0](const Args& a) -> std::optional<double> {
        if (a[1] == 0) return std::nullopt;
        return fmod ? std::fmod(a[0], a[1]) : a[0] - a[1] * std::floor(a[0] / a[1]);
      };
    if (op == "Pow") return [](const Args& a) { return std::pow(a[0], a[1]); };
    if (op == "Equal") return [](const Args& a) { return a[0] == a[1] ? 1.0 : 0.0; };
    if (op == "Less") return [](const Args& a) { return a[0] < a[1] ? 1.0 : 0.0; };
    if (op == "Greater") return [](const Args& a) { return a[0] > a[1] ? 1.0 : 0.0; };
    if (op == "LessOrEqual") return [](const Args& a) { return a[0] <= a[1] ? 1.0 : 0.0; };
    if (op == "GreaterOrEqual") return [](const Args& a) { return a[0] >= a[1] ? 1.0 : 0.0; };
    if (op == "And") return [](const Args& a) { return a[0] != 0 && a[1] != 0 ? 1.0 : 0.0; };
    if (op == "Or") return [](const Args& a) { return a[0] != 0 || a[1] != 0 ? 1.0 : 0.0; };
    if (op == "Not") return [](const Args& a) { return a[0] == 0 ? 1.0 : 0.0; };
    if (op == "Where") return [](const Args& a) { return a[0] != 0 ? a[1] : a[2]; };
    if (op == "Neg") return [](const Args& a) { return -a[0]; };
    if (op == "Abs") return [](const Args& a) { return std::abs(a[0]); };
    if (op == "Floor") return [](const Args& a) { return std::floor(a[0]); };
    if (op == "Ceil") return [](const Args& a) { return std::ceil(a[0]); };
    if (op == "Sqrt")
      return [](const Args& a) -> std::optional<double> {
        if (a[0] < 0) return std::nullopt;
        return std::sqrt(a[0]);
      };
    if (op == "Reciprocal")
      return [integer](const Args& a) -> std::optional<double> {
        if (a[0] == 0) return std::nullopt;
        return integer ? std::trunc(1 / a[0]) : 1 / a[0];
      };
    if (op == "Min") return [](const Args& a) { return *std::min_element(a.begin(), a.end()); };
    return [](const Args& a) { return *std::max_element(a.begin(), a.end()); };  // Max
  }();
  return One(Elementwise(args, type, fn));
}

}  // namespace

std::optional<std::vector<ConstTensor>> Fold(const onnx::NodeProto& node,
                                             const std::unordered_map<std::string, ConstTensor>& values,
                                             const ShapeLookup& shape_of) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
  if (node.output_size() != 1 || node.output(0).empty()) return std::nullopt;
  const std::string& op = node.op_type();
  if (op == "Shape" || op == "Size" || op == "Constant") return FoldWithoutValues(node, op, shape_of);
  // Every other operator needs the values of its inputs (left-out optional inputs as null).
  std::vector<const ConstTensor*> in;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      in.push_back(nullptr);
      continue;
    }
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    in.push_back(&it->second);
  }
  if (in.empty() || !in[0]) return std::nullopt;
  return kMovement.count(op) ? FoldMovement(node, op, in) : FoldArithmetic(node, op, in);
}

}  // namespace tt::onnx_import
