// ONNX nodes as layers: what a sketch computes becomes a layer; every other node is listed as
// not tuned, with why and its estimated FLOPs (docs/onnx.md).
#include <algorithm>
#include <unordered_set>

#include "networks/onnx_reader.h"
#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt::onnx_import {

int64_t OnnxReader::IntAttr(const onnx::NodeProto& node, const char* name, int64_t fallback) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

Dims OnnxReader::IntsAttr(const onnx::NodeProto& node, const char* name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return Dims(a.ints().begin(), a.ints().end());
  return {};
}

std::string OnnxReader::StringAttr(const onnx::NodeProto& node, const char* name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.s();
  return {};
}

void OnnxReader::Untuned(Network& network, int index, std::string why, std::optional<double> flops) const {
  network.untuned.push_back({NodeLabel(index), OpName(Node(index)), std::move(why), flops});
}

// A layer when some sketch computes the workload; else the node is listed with the reason.
void OnnxReader::Tuned(Network& network, int index, const std::string& op, const std::string& shape,
                       std::vector<std::string> flags, double flops) const {
  Workload workload;
  try {
    workload = ParseWorkload(op, shape, flags);
  } catch (const UserError& e) {
    return Untuned(network, index, op + " " + shape + ": " + e.what(), flops);
  }
  if (ApplicableTemplates(workload).empty()) {
    const auto why = TemplatesFor(op).front()->WhyNotApplicable(workload);
    return Untuned(network, index, "no sketch computes " + workload.Key() + (why ? ": " + *why : ""), flops);
  }
  network.layers.push_back({NodeLabel(index), op, shape, std::move(flags), 1});
}

void OnnxReader::MapNode(int index, Network& network) const {
  const auto& node = Node(index);
  if (folded_[static_cast<size_t>(index)]) return Untuned(network, index, "constant (computed at load)", 0.0);
  if (!IsDefaultDomain(node.domain()))
    return Untuned(network, index, "operator of domain '" + node.domain() + "': not read", std::nullopt);
  const std::string& op = node.op_type();
  if (op == "Conv" || op == "Gemm" || op == "MatMul") {
    if (node.input_size() < 2 || node.output_size() < 1)
      return Untuned(network, index, op + " without two inputs and an output", std::nullopt);
    for (int i = 0; i < 2; ++i)
      if (!Shape(node.input(i)))
        return Untuned(network, index, "shapes unknown: " + WhyUnknown(node.input(i)), std::nullopt);
    if (!Shape(node.output(0)))
      return Untuned(network, index, "shapes unknown: " + WhyUnknown(node.output(0)), std::nullopt);
    if (op == "Conv") return MapConv(index, network);
    if (op == "Gemm") return MapGemm(index, network);
    return MapMatMul(index, network);
  }
  const auto [why, flops] = Estimate(node);
  Untuned(network, index, why, flops);
}

void OnnxReader::MapConv(int index, Network& network) const {
  const auto& node = Node(index);
  const Dims x = *Shape(node.input(0)), w = *Shape(node.input(1)), y = *Shape(node.output(0));
  const int64_t groups = IntAttr(node, "group", 1);
  const size_t spatial = x.size() >= 2 ? x.size() - 2 : 0;
  const double flops = w.size() >= 2 ? 2.0 * Product(y) * static_cast<double>(w[1]) * Product(w, 2) : 0.0;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    return Untuned(network, index, std::to_string(spatial) + "-D convolution: the sketches compute 2-D ones", flops);
  const int64_t channels = x[1], out_channels = w[0];
  if (groups < 1 || channels != w[1] * groups || out_channels % groups != 0)
    Fail(NodeWords(index) + ": its weight '" + node.input(1) + "' (" + JoinDims(w) + ") does not fit its input '" +
         node.input(0) + "' (" + JoinDims(x) + ") in " + std::to_string(groups) + " group" + (groups == 1 ? "" : "s") +
         ": the input has " + std::to_string(channels) + " channels, the weight " + std::to_string(w[1]) +
         " per group");
  Dims strides = IntsAttr(node, "strides"), dilations = IntsAttr(node, "dilations"), pads = IntsAttr(node, "pads");
  if (strides.empty()) strides = {1, 1};
  if (dilations.empty()) dilations = {1, 1};
  const Dims kernel{w[2], w[3]};
  const std::string auto_pad = StringAttr(node, "auto_pad");
  Dims begin{0, 0}, end{0, 0};
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t a = 0; a < 2; ++a) {
      const int64_t in = x[2 + a], s = strides[a];
      const int64_t total = std::max<int64_t>(0, ((in + s - 1) / s - 1) * s + (kernel[a] - 1) * dilations[a] + 1 - in);
      const int64_t small = total / 2;
      begin[a] = auto_pad == "SAME_UPPER" ? small : total - small;
      end[a] = total - begin[a];
    }
  } else if (auto_pad.empty() || auto_pad == "NOTSET") {
    if (pads.size() == 4) begin = {pads[0], pads[1]}, end = {pads[2], pads[3]};
  }
  if (strides.size() != 2 || dilations.size() != 2)
    return Untuned(network, index, "strides or dilations of another rank than the kernel", flops);
  if (strides[0] != strides[1])
    return Untuned(network, index,
                   "strides " + JoinDims(strides) + " differ between height and width: a sketch takes one stride",
                   flops);
  if (dilations[0] != dilations[1])
    return Untuned(network, index,
                   "dilations " + JoinDims(dilations) + " differ between height and width: a sketch takes one dilation",
                   flops);
  // One pad on every side: the model's pads map when windows start where that pad puts them
  // and the output has the same extent (padding that no window reaches does not matter).
  const int64_t pad = begin[0];
  bool same_windows = begin[1] == pad;
  for (size_t a = 0; a < 2; ++a)
    same_windows = same_windows && ConvOutputExtent(x[2 + a], kernel[a], strides[0], pad, dilations[0]) == y[2 + a];
  if (!same_windows && begin[0] == end[0] && begin[1] == end[1])
    return Untuned(network, index,
                   "padding " + std::to_string(begin[0]) + " (height) and " + std::to_string(begin[1]) +
                       " (width) differ: a sketch takes one pad",
                   flops);
  if (!same_windows)
    return Untuned(network, index,
                   "asymmetric padding (top " + std::to_string(begin[0]) + ", left " + std::to_string(begin[1]) +
                       ", bottom " + std::to_string(end[0]) + ", right " + std::to_string(end[1]) +
                       "): a sketch pads every side alike",
                   flops);
  const std::string window = ",kh=" + std::to_string(kernel[0]) + ",kw=" + std::to_string(kernel[1]) +
                             ",stride=" + std::to_string(strides[0]) + ",pad=" + std::to_string(pad) +
                             ",dilation=" + std::to_string(dilations[0]);
  const std::string image = ",h=" + std::to_string(x[2]) + ",w=" + std::to_string(x[3]);
  if (groups == 1)
    return Tuned(network, index, "conv2d",
                 "n=" + std::to_string(x[0]) + ",ci=" + std::to_string(channels) + image +
                     ",co=" + std::to_string(out_channels) + window,
                 {}, flops);
  if (groups == channels && out_channels == channels)
    return Tuned(network, index, "depthwise_conv2d",
                 "n=" + std::to_string(x[0]) + ",c=" + std::to_string(channels) + image + window, {}, flops);
  if (groups == channels && channels > 0 && out_channels % channels == 0)
    return Untuned(network, index,
                   "depthwise convolution with channel multiplier " + std::to_string(out_channels / channels) +
                       ": the depthwise sketches take multiplier 1",
                   flops);
  Untuned(network, index,
          "grouped convolution (" + std::to_string(groups) + " groups of " +
              std::to_string(groups > 0 ? channels / groups : 0) + " channels): no sketch computes it",
          flops);
}

void OnnxReader::MapGemm(int index, Network& network) const {
  const auto& node = Node(index);
  const Dims a = *Shape(node.input(0)), b = *Shape(node.input(1));
  if (a.size() != 2 || b.size() != 2)
    return Untuned(network, index, "Gemm of inputs that are not matrices", std::nullopt);
  const bool trans_a = IntAttr(node, "transA", 0) != 0, trans_b = IntAttr(node, "transB", 0) != 0;
  const int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1], n = trans_b ? b[0] : b[1];
  if ((trans_b ? b[1] : b[0]) != k)
    Fail(NodeWords(index) + ": its inputs " + JoinDims(a) + " and " + JoinDims(b) + " do not multiply");
  // A transposed weight is a layout chosen once, not work: only transposed activations count.
  MapProduct(network, index, 1, m, n, k, trans_a && !IsConstant(node.input(0)), trans_b && !IsConstant(node.input(1)));
}

// A Transpose that swaps the last two axes of an activation and feeds a MatMul is read as the
// MatMul's transposition (batch_matmul's transpose_a / transpose_b).
bool OnnxReader::TransposedActivation(const std::string& value) const {
  const auto producer = producer_.find(value);
  if (producer == producer_.end()) return false;
  const auto& node = Node(producer->second);
  if (node.op_type() != "Transpose" || !IsDefaultDomain(node.domain()) || node.input_size() < 1 ||
      IsConstant(node.input(0)))
    return false;
  const Dims perm = IntsAttr(node, "perm");
  const size_t rank = perm.size();
  if (rank < 2) return false;
  for (size_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return perm[rank - 2] == static_cast<int64_t>(rank - 1) && perm[rank - 1] == static_cast<int64_t>(rank - 2);
}

void OnnxReader::MapMatMul(int index, Network& network) const {
  const auto& node = Node(index);
  Dims a = *Shape(node.input(0)), b = *Shape(node.input(1));
  if (a.empty() || b.empty()) return Untuned(network, index, "MatMul of scalars", std::nullopt);
  const bool trans_a = a.size() >= 2 && TransposedActivation(node.input(0));
  const bool trans_b = b.size() >= 2 && TransposedActivation(node.input(1));
  if (a.size() == 1) a.insert(a.begin(), 1);  // a vector times a matrix: one row
  if (b.size() == 1) b.push_back(1);          // a matrix times a vector: one column
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k)
    Fail(NodeWords(index) + ": its inputs " + JoinDims(a) + " and " + JoinDims(b) + " do not multiply");
  const Dims batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  const double rows_a = Product(batch_a), rows_b = Product(batch_b);
  if (rows_b == 1 && !trans_a)  // the same matrix for every row of A: one GEMM over all of them
    return MapProduct(network, index, 1, static_cast<int64_t>(rows_a) * m, n, k, false, trans_b);
  // The batch is the broadcast of both batch shapes.
  Dims batch(std::max(batch_a.size(), batch_b.size()), 1);
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t da = i < batch.size() - batch_a.size() ? 1 : batch_a[i - (batch.size() - batch_a.size())];
    const int64_t db = i < batch.size() - batch_b.size() ? 1 : batch_b[i - (batch.size() - batch_b.size())];
    batch[i] = std::max(da, db);
  }
  MapProduct(network, index, static_cast<int64_t>(Product(batch)), m, n, k, trans_a, trans_b);
}

void OnnxReader::MapProduct(Network& network, int index, int64_t b, int64_t m, int64_t n, int64_t k, bool trans_a,
                            bool trans_b) const {
  const double flops =
      2.0 * static_cast<double>(b) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (b == 1 && !trans_a && !trans_b)
    return Tuned(network, index, "gemm", std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k), {},
                 flops);
  std::vector<std::string> flags;
  if (trans_a) flags.emplace_back("transpose_a");
  if (trans_b) flags.emplace_back("transpose_b");
  Tuned(network, index, "batch_matmul",
        std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k),
        std::move(flags), flops);
}

// Why a node of ONNX's own domain is not tuned, and its FLOPs (estimates: one per output
// element for elementwise operators; none for data movement; see docs/onnx.md).
std::pair<std::string, std::optional<double>> OnnxReader::Estimate(const onnx::NodeProto& node) const {
  static const std::unordered_set<std::string> kActivations = {
      "Relu", "LeakyRelu", "PRelu",    "Sigmoid",  "HardSigmoid",     "HardSwish", "Tanh", "Elu",
      "Selu", "Celu",      "Softplus", "Softsign", "ThresholdedRelu", "Mish",      "Clip", "Gelu"};
  static const std::unordered_set<std::string> kElementwise = {"Add",
                                                               "Sub",
                                                               "Mul",
                                                               "Div",
                                                               "Pow",
                                                               "Max",
                                                               "Min",
                                                               "Sum",
                                                               "Mean",
                                                               "Where",
                                                               "Mod",
                                                               "Equal",
                                                               "Greater",
                                                               "Less",
                                                               "GreaterOrEqual",
                                                               "LessOrEqual",
                                                               "Not",
                                                               "And",
                                                               "Or",
                                                               "Xor",
                                                               "Floor",
                                                               "Ceil",
                                                               "Round",
                                                               "Sign",
                                                               "Abs",
                                                               "Neg",
                                                               "Reciprocal",
                                                               "Sqrt",
                                                               "Exp",
                                                               "Log",
                                                               "Erf",
                                                               "Sin",
                                                               "Cos",
                                                               "Tan",
                                                               "Asin",
                                                               "Acos",
                                                               "Atan",
                                                               "Sinh",
                                                               "Cosh",
                                                               "Asinh",
                                                               "Acosh",
                                                               "Atanh",
                                                               "IsNaN",
                                                               "IsInf",
                                                               "Shrink",
                                                               "BitShift",
                                                               "BitwiseAnd",
                                                               "BitwiseOr",
                                                               "BitwiseXor",
                                                               "BitwiseNot",
                                                               "QuantizeLinear",
                                                               "DequantizeLinear",
                                                               "DynamicQuantizeLinear"};
  static const std::unordered_set<std::string> kDataMovement = {"Reshape",
                                                                "Flatten",
                                                                "Transpose",
                                                                "Concat",
                                                                "Split",
                                                                "SplitToSequence",
                                                                "Slice",
                                                                "Gather",
                                                                "GatherElements",
                                                                "GatherND",
                                                                "Scatter",
                                                                "ScatterND",
                                                                "ScatterElements",
                                                                "Squeeze",
                                                                "Unsqueeze",
                                                                "Identity",
                                                                "Cast",
                                                                "CastLike",
                                                                "Pad",
                                                                "Tile",
                                                                "Expand",
                                                                "Shape",
                                                                "Size",
                                                                "Constant",
                                                                "ConstantOfShape",
                                                                "Range",
                                                                "DepthToSpace",
                                                                "SpaceToDepth",
                                                                "Dropout",
                                                                "Compress",
                                                                "OneHot",
                                                                "ReverseSequence",
                                                                "Trilu",
                                                                "EyeLike",
                                                                "NonZero",
                                                                "Unique",
                                                                "TopK",
                                                                "CenterCropPad",
                                                                "Col2Im",
                                                                "Optional",
                                                                "OptionalGetElement",
                                                                "OptionalHasElement",
                                                                "SequenceConstruct",
                                                                "SequenceAt",
                                                                "SequenceEmpty",
                                                                "SequenceInsert",
                                                                "SequenceErase",
                                                                "SequenceLength",
                                                                "ConcatFromSequence"};
  static const std::unordered_map<std::string, double> kNormalisation = {{"BatchNormalization", 2},
                                                                         {"InstanceNormalization", 5},
                                                                         {"LayerNormalization", 5},
                                                                         {"GroupNormalization", 5},
                                                                         {"LpNormalization", 3},
                                                                         {"MeanVarianceNormalization", 5},
                                                                         {"LRN", 4}};
  const std::string& op = node.op_type();
  const auto out = node.output_size() > 0 ? Shape(node.output(0)) : std::nullopt;
  const auto in = node.input_size() > 0 ? Shape(node.input(0)) : std::nullopt;
  const auto out_elements = out ? std::optional(Product(*out)) : std::nullopt;
  const auto in_elements = in ? std::optional(Product(*in)) : std::nullopt;
  auto times = [](std::optional<double> v, double k) { return v ? std::optional(*v * k) : std::nullopt; };
  if (kActivations.count(op)) return {"activation", out_elements};
  if (kElementwise.count(op)) return {"elementwise", out_elements};
  if (kDataMovement.count(op)) return {"data movement (no arithmetic)", 0.0};
  if (const auto norm = kNormalisation.find(op); norm != kNormalisation.end())
    return {"normalisation", times(out_elements, norm->second)};
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") return {"softmax", times(out_elements, 3)};
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") return {"reduction", in_elements};
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    const Dims kernel = IntsAttr(node, "kernel_shape");
    return {"pooling", times(out_elements, Product(kernel))};
  }
  if (op.rfind("Global", 0) == 0 && op.find("Pool") != std::string::npos) return {"pooling", in_elements};
  if (op == "MaxRoiPool" || op == "RoiAlign" || op == "MaxUnpool") return {"pooling", out_elements};
  if (op == "Resize" || op == "Upsample" || op == "GridSample") return {"resampling", out_elements};
  if (op == "ConvTranspose") {
    const auto w = node.input_size() > 1 ? Shape(node.input(1)) : std::nullopt;
    if (!in || !w || w->size() < 2) return {"transposed convolution: no sketch computes it", std::nullopt};
    return {"transposed convolution: no sketch computes it",
            2.0 * Product(*in) * static_cast<double>((*w)[1]) * Product(*w, 2)};
  }
  if (op == "QLinearConv" || op == "ConvInteger") {
    const size_t wi = op == "QLinearConv" ? 3 : 1;
    const auto w = node.input_size() > static_cast<int>(wi) ? Shape(node.input(static_cast<int>(wi))) : std::nullopt;
    if (!out || !w || w->size() < 2) return {"quantised convolution: the sketches compute float32", std::nullopt};
    return {"quantised convolution: the sketches compute float32",
            2.0 * Product(*out) * static_cast<double>((*w)[1]) * Product(*w, 2)};
  }
  if (op == "MatMulInteger" || op == "QLinearMatMul") {
    const size_t ai = 0, bi = op == "QLinearMatMul" ? 3 : 1;
    const auto a = Shape(node.input(static_cast<int>(ai)));
    const auto b = node.input_size() > static_cast<int>(bi) ? Shape(node.input(static_cast<int>(bi))) : std::nullopt;
    if (!out || !a || a->empty()) return {"quantised matrix product: the sketches compute float32", std::nullopt};
    return {"quantised matrix product: the sketches compute float32",
            2.0 * Product(*out) * static_cast<double>(a->back())};
  }
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    const double gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    const auto w = node.input_size() > 2 ? Shape(node.input(2)) : std::nullopt;  // R: dirs x gates*hidden x hidden
    const auto x = in;                                                           // seq x batch x input
    if (!x || !w || x->size() != 3 || w->size() != 3) return {"recurrent layer: no sketch computes it", std::nullopt};
    const double hidden = static_cast<double>((*w)[2]), dirs = static_cast<double>((*w)[0]);
    return {"recurrent layer: no sketch computes it", 2.0 * static_cast<double>((*x)[0]) *
                                                          static_cast<double>((*x)[1]) * dirs * gates * hidden *
                                                          (static_cast<double>((*x)[2]) + hidden)};
  }
  if (op == "If" || op == "Loop" || op == "Scan") return {"control flow: its subgraphs are not read", std::nullopt};
  return {"no sketch computes " + op, std::nullopt};
}

}  // namespace tt::onnx_import
