// ONNX models as networks: the one place that knows ONNX's and protobuf's types.
#include "networks/onnx_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "networks/onnx_attributes.h"
#include "networks/onnx_fold.h"
#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using Dims = std::vector<int64_t>;

constexpr std::string_view kOnnxDomain = "";      // also spelled "ai.onnx"
constexpr int64_t kMaxInlinedShapeTensor = 4096;  // elements of an external integer tensor read for shapes

std::string JoinDims(const Dims& dims, const char* separator = "x") {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? separator : "") + std::to_string(dims[i]);
  return dims.empty() ? "a scalar" : text;
}

// The product of dims[from:], as a double (no overflow).
double Product(const Dims& dims, size_t from = 0) {
  double p = 1;
  for (auto it = dims.begin() + static_cast<ptrdiff_t>(std::min(from, dims.size())); it != dims.end(); ++it)
    p *= static_cast<double>(*it);
  return p;
}

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// protobuf reports parse problems on stderr by default; here they become the one UserError.
class QuietProtobuf {
 public:
  QuietProtobuf() : previous_(google::protobuf::SetLogHandler(&Ignore)) {}
  ~QuietProtobuf() { google::protobuf::SetLogHandler(previous_); }

 private:
  static void Ignore(google::protobuf::LogLevel, const char*, int, const std::string&) {}
  google::protobuf::LogHandler* previous_;
};

// The bytes of one element of a tensor type; 0 when not fixed (strings) or unknown.
int64_t ElementBytes(int32_t type) {
  using T = onnx::TensorProto;
  switch (type) {
    case T::FLOAT:
    case T::INT32:
    case T::UINT32:
      return 4;
    case T::DOUBLE:
    case T::INT64:
    case T::UINT64:
    case T::COMPLEX64:
      return 8;
    case T::FLOAT16:
    case T::BFLOAT16:
    case T::INT16:
    case T::UINT16:
      return 2;
    case T::INT8:
    case T::UINT8:
    case T::BOOL:
      return 1;
    case T::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

class OnnxReader {
 public:
  OnnxReader(std::string path, const NetworkLoadOptions& options) : path_(std::move(path)), options_(options) {}

  Network Read() {
    Parse();
    CheckOpsets();
    IndexGraph();
    for (int i = 0; i < NodeCount(); ++i)
      if (auto why = onnx_import::WhyAttributesAbsurd(Node(i))) Fail(NodeWords(i) + ": " + *why);
    int64_t batch = FixInputShapes();
    CheckExternalData();
    InferAndFold();
    Network network;
    network.name = fs::path(path_).stem().string();
    if (network.name.empty()) network.name = "onnx_model";
    network.batch = batch;
    for (int i = 0; i < NodeCount(); ++i) MapNode(i, network);
    std::string producer = model_.producer_name();
    if (!model_.producer_version().empty()) producer += " " + model_.producer_version();
    network.description = "ONNX model " + path_ + " (opset " + std::to_string(opset_) +
                          (producer.empty() ? "" : ", from " + producer) + "): " + std::to_string(NodeCount()) +
                          " nodes, " + std::to_string(network.layers.size()) + " of them tuned";
    return network;
  }

 private:
  const onnx::GraphProto& graph() const { return model_.graph(); }
  // The model's nodes as read; the graph itself loses the nodes that folding computes.
  const onnx::NodeProto& Node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  int NodeCount() const { return static_cast<int>(nodes_.size()); }

  [[noreturn]] void Fail(const std::string& problem) const { throw UserError("ONNX model " + path_ + ": " + problem); }

  std::string NodeLabel(int index) const {
    const auto& node = Node(index);
    const std::string op = OpName(node);
    return node.name().empty() ? "#" + std::to_string(index) + " (" + op + ")" : node.name();
  }
  std::string NodeWords(int index) const {
    const auto& node = Node(index);
    return node.name().empty() ? "node " + NodeLabel(index) : "node '" + node.name() + "' (" + OpName(node) + ")";
  }
  static std::string OpName(const onnx::NodeProto& node) {
    return IsDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
  }

  // --- the file ---------------------------------------------------------------------------

  void Parse() {
    std::error_code ec;
    const auto size = fs::file_size(path_, ec);
    if (ec) Fail("cannot read the file (" + ec.message() + ")");
    if (size == 0) Fail("the file is empty, not an ONNX model");
    if (size > static_cast<uintmax_t>(INT_MAX))
      Fail(
          "the file is larger than 2 GiB, more than one protobuf message holds: not an ONNX model (ONNX keeps the "
          "weights of such models in external data files)");
    std::string bytes(size, '\0');
    {
      std::ifstream in(path_, std::ios::binary);
      if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) Fail("cannot read the file");
    }
    bool parsed = false;
    {
      QuietProtobuf quiet;
      google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
      google::protobuf::io::CodedInputStream coded(&raw);
      coded.SetTotalBytesLimit(INT_MAX);
      parsed = model_.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
    }
    // An ONNX file starts with its IR version: field 1, a varint (0x08).
    const bool looks_onnx = static_cast<unsigned char>(bytes[0]) == 0x08;
    if (!parsed)
      Fail(looks_onnx ? "the file is truncated or corrupt: protobuf cannot read it as an ONNX ModelProto"
                      : "not an ONNX model (protobuf cannot read it as a ModelProto)");
    if (model_.ir_version() <= 0 || !model_.has_graph())
      Fail(looks_onnx ? "the model has no graph: the file is truncated, or not an ONNX model"
                      : "not an ONNX model (no IR version and graph)");
    if (graph().node_size() == 0) Fail("the model's graph has no nodes");
    nodes_.assign(graph().node().begin(), graph().node().end());
    folded_.assign(nodes_.size(), false);
  }

  void CheckOpsets() {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    for (const auto& import : model_.opset_import()) {
      const std::string domain = IsDefaultDomain(import.domain()) ? std::string(kOnnxDomain) : import.domain();
      opsets_[domain] = import.version();
      const auto known = ranges.find(domain);
      if (known == ranges.end()) continue;  // a custom domain: its nodes are listed as not tuned
      const std::string name = domain.empty() ? "ai.onnx" : domain;
      if (import.version() > known->second.second || import.version() < known->second.first)
        Fail("opset " + std::to_string(import.version()) + " of domain '" + name +
             "' is not supported: this build reads ONNX 1.12, opsets " + std::to_string(known->second.first) + " to " +
             std::to_string(known->second.second) + " (export the model with opset " +
             std::to_string(known->second.second) + " or older)");
    }
    if (model_.opset_import_size() == 0) {
      // IR versions before 3 had no opset imports and meant opset 1.
      if (model_.ir_version() >= 3) Fail("the model imports no opset: the file is truncated, or not an ONNX model");
      opsets_[std::string(kOnnxDomain)] = 1;
    }
    for (int i = 0; i < NodeCount(); ++i) {
      const auto& node = Node(i);
      const std::string domain = IsDefaultDomain(node.domain()) ? std::string(kOnnxDomain) : node.domain();
      if (!opsets_.count(domain))
        Fail(NodeWords(i) + ": its domain '" + (domain.empty() ? "ai.onnx" : domain) +
             "' is not among the model's opset imports");
    }
    opset_ = opsets_.at(std::string(kOnnxDomain));
  }

  // Producers, consumers, constants; every node input must exist before the node.
  void IndexGraph() {
    std::unordered_set<std::string> defined;
    for (const auto& init : graph().initializer()) {
      constants_.insert(init.name());
      defined.insert(init.name());
    }
    for (const auto& sparse : graph().sparse_initializer()) {
      constants_.insert(sparse.values().name());
      defined.insert(sparse.values().name());
    }
    for (const auto& input : graph().input()) defined.insert(input.name());
    for (int i = 0; i < NodeCount(); ++i) {
      const auto& node = Node(i);
      for (const auto& input : node.input()) {
        if (input.empty()) continue;  // an optional input left out
        if (!defined.count(input))
          Fail(
              NodeWords(i) + ": its input '" + input +
              "' is produced by no earlier node and is no graph input or initializer (a truncated or malformed model)");
        consumers_.emplace(input, i);
      }
      // What a Constant makes, and what layout operators make of constants, is a constant.
      static const std::unordered_set<std::string> kLayoutOps = {
          "Identity", "Cast", "Transpose", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "DequantizeLinear"};
      const bool constant = IsDefaultDomain(node.domain()) &&
                            (node.op_type() == "Constant" ||
                             (kLayoutOps.count(node.op_type()) && node.input_size() > 0 &&
                              std::all_of(node.input().begin(), node.input().end(), [&](const std::string& in) {
                                return in.empty() || constants_.count(in) > 0;
                              })));
      for (const auto& output : node.output()) {
        if (output.empty()) continue;
        producer_[output] = i;
        defined.insert(output);
        if (constant) constants_.insert(output);
      }
    }
  }

  std::string UsedBy(const std::string& value) const {
    const auto it = consumers_.find(value);
    return it == consumers_.end() ? "used by no node" : "used by " + NodeWords(it->second);
  }

  // --- input shapes -----------------------------------------------------------------------

  // Sets every graph input's dimensions; returns the batch the shapes hold.
  int64_t FixInputShapes() {
    if (options_.batch && *options_.batch < 1) throw UserError("--batch must be at least 1");
    std::vector<onnx::ValueInfoProto*> inputs;
    std::string names;
    for (auto& input : *model_.mutable_graph()->mutable_input()) {
      if (constants_.count(input.name())) continue;  // an initializer listed as an input (IR < 4)
      inputs.push_back(&input);
      names += (names.empty() ? "'" : ", '") + input.name() + "'";
    }
    for (const auto& [name, dims] : options_.input_shapes)
      if (std::none_of(inputs.begin(), inputs.end(), [&](const auto* in) { return in->name() == name; }))
        Fail("--input-shape names '" + name +
             "', which is not an input of the model (its inputs: " + (names.empty() ? "none" : names) + ")");
    const int64_t batch = options_.batch.value_or(1);
    bool took_batch = false;
    std::optional<int64_t> first_leading;
    for (auto* input : inputs) {
      const std::string& name = input->name();
      if (!input->type().has_tensor_type())
        Fail("input '" + name + "' is not a tensor (inputs that are sequences, maps or optionals are not read)");
      auto* tensor = input->mutable_type()->mutable_tensor_type();
      const auto given = options_.input_shapes.find(name);
      if (!tensor->has_shape()) {
        if (given == options_.input_shapes.end())
          Fail("input '" + name + "' declares no shape: give its dimensions with --input-shape " + name + "=N,C,...");
        for (size_t i = 0; i < given->second.size(); ++i) tensor->mutable_shape()->add_dim();
      }
      auto* shape = tensor->mutable_shape();
      auto dynamic = [](const onnx::TensorShapeProto_Dimension& d) { return !d.has_dim_value() || d.dim_value() <= 0; };
      auto dim_words = [](const onnx::TensorShapeProto_Dimension& d) {
        return d.has_dim_param() && !d.dim_param().empty() ? "'" + d.dim_param() + "'" : std::string("unnamed");
      };
      if (given != options_.input_shapes.end()) {
        if (static_cast<size_t>(shape->dim_size()) != given->second.size())
          Fail("--input-shape " + name + " gives " + std::to_string(given->second.size()) + " dimensions; input '" +
               name + "' has " + std::to_string(shape->dim_size()));
        for (int i = 0; i < shape->dim_size(); ++i) {
          auto* d = shape->mutable_dim(i);
          if (!dynamic(*d) && d->dim_value() != given->second[static_cast<size_t>(i)])
            Fail("input '" + name + "' has dimension " + std::to_string(i) + " fixed at " +
                 std::to_string(d->dim_value()) + " in the model; --input-shape gives " +
                 std::to_string(given->second[static_cast<size_t>(i)]));
          d->set_dim_value(given->second[static_cast<size_t>(i)]);
        }
      } else {
        std::string example;
        for (int i = 0; i < shape->dim_size(); ++i) {
          const auto& d = shape->dim(i);
          example += (i ? "," : "") +
                     (!dynamic(d) ? std::to_string(d.dim_value())
                      : i == 0    ? std::to_string(batch)
                                  : "<" + (d.has_dim_param() && !d.dim_param().empty() ? d.dim_param() : "?") + ">");
        }
        for (int i = 0; i < shape->dim_size(); ++i) {
          auto* d = shape->mutable_dim(i);
          if (!dynamic(*d)) continue;
          if (i > 0)
            Fail("input '" + name + "' has no value for its dimension " + std::to_string(i) + " (" + dim_words(*d) +
                 "): give every dimension with --input-shape " + name + "=" + example);
          d->set_dim_value(batch);
          took_batch = true;
        }
      }
      if (!first_leading && shape->dim_size() > 0) first_leading = shape->dim(0).dim_value();
    }
    if (took_batch) return batch;
    if (options_.batch && first_leading && *first_leading != *options_.batch)
      Fail("--batch " + std::to_string(*options_.batch) + " does not apply: no input of the model has a dynamic " +
           "leading dimension, and input '" + inputs.front()->name() + "' holds batch " +
           std::to_string(*first_leading) + " (give no --batch, or export the model with a dynamic batch)");
    return first_leading.value_or(options_.batch.value_or(1));
  }

  // --- external data ----------------------------------------------------------------------

  // Every external data file must be there and long enough; nothing is read from them but
  // small integer tensors, which may hold shapes (a Reshape's target).
  void CheckExternalData() {
    const fs::path folder = fs::path(path_).parent_path();
    for (auto& tensor : *model_.mutable_graph()->mutable_initializer()) {
      if (tensor.data_location() != onnx::TensorProto::EXTERNAL) continue;
      const std::string what = "initializer '" + tensor.name() + "' (" + UsedBy(tensor.name()) + ")";
      std::string location;
      int64_t offset = 0;
      std::optional<int64_t> length;
      for (const auto& entry : tensor.external_data()) {
        try {
          if (entry.key() == "location") location = entry.value();
          if (entry.key() == "offset") offset = std::stoll(entry.value());
          if (entry.key() == "length") length = std::stoll(entry.value());
        } catch (const std::exception&) {
          Fail(what + ": its external data " + entry.key() + " '" + entry.value() + "' is not a number");
        }
      }
      if (location.empty()) Fail(what + ": its data is external but names no file");
      const fs::path relative(location);
      if (relative.is_absolute() ||
          std::any_of(relative.begin(), relative.end(), [](const fs::path& p) { return p == ".."; }))
        Fail(what + ": its external data file '" + location +
             "' is not a path inside the model's folder, as ONNX requires");
      const fs::path file = folder / relative;
      std::error_code ec;
      if (!fs::is_regular_file(file, ec))
        Fail(what + ": its external data file '" + location + "' is missing (looked for " + file.string() + ")");
      const auto file_size = static_cast<int64_t>(fs::file_size(file, ec));
      const double elements = Product(Dims(tensor.dims().begin(), tensor.dims().end()));
      const int64_t element_bytes = ElementBytes(tensor.data_type());
      const int64_t needed = length ? *length : static_cast<int64_t>(elements) * element_bytes;
      if (ec || offset < 0 || needed < 0 || file_size < offset + needed)
        Fail(what + ": its external data file '" + location + "' holds " + std::to_string(file_size) +
             " bytes, the tensor needs bytes " + std::to_string(offset) + " to " + std::to_string(offset + needed) +
             " (a truncated data file?)");
      const bool integer =
          tensor.data_type() == onnx::TensorProto::INT64 || tensor.data_type() == onnx::TensorProto::INT32;
      if (integer && tensor.dims_size() <= 1 && elements <= kMaxInlinedShapeTensor &&
          needed == static_cast<int64_t>(elements) * element_bytes) {
        std::string bytes(static_cast<size_t>(needed), '\0');
        std::ifstream in(file, std::ios::binary);
        in.seekg(offset);
        if (!in.read(bytes.data(), static_cast<std::streamsize>(needed)))
          Fail(what + ": cannot read its external data file '" + location + "'");
        tensor.set_raw_data(std::move(bytes));
        tensor.clear_external_data();
        tensor.set_data_location(onnx::TensorProto::DEFAULT);
      }
    }
  }

  // --- shapes -----------------------------------------------------------------------------

  // Shape inference, then folding of the shape arithmetic whose values it makes known (a
  // Reshape's target computed from Shape nodes), again until nothing more folds: ONNX 1.12
  // does not carry computed values into a Reshape's target by itself.
  void InferAndFold() {
    // Shapes are inferred from the inputs alone: what the exporter wrote for other values may
    // hold the batch it exported at.
    auto* g = model_.mutable_graph();
    g->clear_value_info();
    for (auto& output : *g->mutable_output())
      if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
    for (const auto& t : g->initializer())
      if (auto value = onnx_import::ReadTensor(t)) values_[t.name()] = std::move(*value);
    std::vector<int> original(nodes_.size());  // the index in nodes_ of each node left in the graph
    std::iota(original.begin(), original.end(), 0);
    const auto shape_of = [this](const std::string& value) -> std::optional<Dims> {
      if (auto dims = Shape(value)) return dims;
      if (const auto it = values_.find(value); it != values_.end()) return it->second.dims;
      return std::nullopt;
    };
    for (int pass = 0; pass <= NodeCount(); ++pass) {
      RunShapeInference();
      IndexShapes();
      std::vector<bool> folded(static_cast<size_t>(g->node_size()), false);
      bool any = false;
      for (int i = 0; i < g->node_size(); ++i) {
        auto out = onnx_import::Fold(g->node(i), values_, shape_of);
        if (!out) continue;
        values_[g->node(i).output(0)] = std::move(out->front());
        folded[static_cast<size_t>(i)] = any = true;
        folded_[static_cast<size_t>(original[static_cast<size_t>(i)])] = true;
      }
      if (!any) return;
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      std::vector<int> kept_original;
      for (int i = 0; i < g->node_size(); ++i) {
        if (folded[static_cast<size_t>(i)]) {
          const std::string& name = g->node(i).output(0);
          *g->add_initializer() = onnx_import::WriteTensor(name, values_.at(name));
          constants_.insert(name);
        } else {
          kept.Add()->Swap(g->mutable_node(i));
          kept_original.push_back(original[static_cast<size_t>(i)]);
        }
      }
      g->mutable_node()->Swap(&kept);
      original = std::move(kept_original);
    }
  }

  void RunShapeInference() {
    try {
      QuietProtobuf quiet;
      const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/1, /*data_prop=*/true);
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      Fail("shape inference fails: " + InferenceMessage(e.what()));
    }
  }

  // "[ShapeInferenceError] Inference error(s): (op_type:Conv, node name: c1): [ShapeInferenceError] why"
  // becomes "node 'c1' (Conv): why".
  static std::string InferenceMessage(const std::string& what) {
    std::string text = OneLine(what);
    const std::string prefix = "Inference error(s): ";
    if (const auto at = text.find(prefix); at != std::string::npos) text = text.substr(at + prefix.size());
    const auto op_at = text.find("(op_type:");
    const auto name_at = text.find(", node name: ");
    const auto close = text.find("): ", name_at == std::string::npos ? 0 : name_at);
    if (op_at != std::string::npos && name_at != std::string::npos && close != std::string::npos && op_at < name_at) {
      const std::string op = text.substr(op_at + 9, name_at - op_at - 9);
      const std::string name = text.substr(name_at + 13, close - name_at - 13);
      std::string rest = text.substr(close + 3);
      for (const std::string tag : {"[ShapeInferenceError] ", "[TypeInferenceError] "})
        if (rest.rfind(tag, 0) == 0) rest = rest.substr(tag.size());
      // Only the first error: the others follow from it, as a rule.
      for (const std::string tag : {"[ShapeInferenceError]", "[TypeInferenceError]"})
        if (const auto next = rest.find(tag); next != std::string::npos) rest = rest.substr(0, next);
      while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
      text = (name.empty() ? "a node (" + op + ")" : "node '" + name + "' (" + op + ")") + ": " + rest;
    }
    return text;
  }

  void IndexShapes() {
    shapes_.clear();
    auto add = [this](const onnx::ValueInfoProto& v) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
      Dims dims;
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return;
        dims.push_back(d.dim_value());
      }
      shapes_[v.name()] = std::move(dims);
    };
    for (const auto& v : graph().input()) add(v);
    for (const auto& v : graph().value_info()) add(v);
    for (const auto& v : graph().output()) add(v);
    for (const auto& t : graph().initializer()) shapes_[t.name()] = Dims(t.dims().begin(), t.dims().end());
  }

  std::optional<Dims> Shape(const std::string& value) const {
    const auto it = shapes_.find(value);
    return it == shapes_.end() ? std::nullopt : std::optional(it->second);
  }

  // Why a value's shape is unknown: the first node upstream whose inputs are known and whose
  // outputs are not.
  std::string WhyUnknown(std::string value) const {
    for (int steps = 0; steps < NodeCount() + 1; ++steps) {
      const auto producer = producer_.find(value);
      if (producer == producer_.end()) return "the shape of '" + value + "' is unknown";
      const auto& node = Node(producer->second);
      const auto unknown_input = std::find_if(node.input().begin(), node.input().end(),
                                              [&](const std::string& in) { return !in.empty() && !Shape(in); });
      if (unknown_input == node.input().end()) {
        const std::string domain = IsDefaultDomain(node.domain()) ? std::string(kOnnxDomain) : node.domain();
        const auto opset = opsets_.find(domain);
        const auto* schema =
            onnx::OpSchemaRegistry::Schema(node.op_type(), opset == opsets_.end() ? 1 : opset->second, domain);
        if (schema == nullptr)
          return NodeWords(producer->second) +
                 " is an operator ONNX 1.12 does not know, so the shapes after it are unknown";
        return "ONNX shape inference cannot tell the output shape of " + NodeWords(producer->second) +
               " (it depends on the data)";
      }
      value = *unknown_input;
    }
    return "the shape of '" + value + "' is unknown";
  }

  bool IsConstant(const std::string& value) const { return constants_.count(value) > 0; }

  // --- nodes ------------------------------------------------------------------------------

  int64_t IntAttr(const onnx::NodeProto& node, const char* name, int64_t fallback) const {
    for (const auto& a : node.attribute())
      if (a.name() == name) return a.i();
    return fallback;
  }
  Dims IntsAttr(const onnx::NodeProto& node, const char* name) const {
    for (const auto& a : node.attribute())
      if (a.name() == name) return Dims(a.ints().begin(), a.ints().end());
    return {};
  }
  std::string StringAttr(const onnx::NodeProto& node, const char* name) const {
    for (const auto& a : node.attribute())
      if (a.name() == name) return a.s();
    return {};
  }

  void Untuned(Network& network, int index, std::string why, std::optional<double> flops) const {
    network.untuned.push_back({NodeLabel(index), OpName(Node(index)), std::move(why), flops});
  }

  // A layer when some sketch computes the workload; else the node is listed with the reason.
  void Tuned(Network& network, int index, const std::string& op, const std::string& shape,
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

  void MapNode(int index, Network& network) const {
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

  void MapConv(int index, Network& network) const {
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
           node.input(0) + "' (" + JoinDims(x) + ") in " + std::to_string(groups) + " group" +
           (groups == 1 ? "" : "s") + ": the input has " + std::to_string(channels) + " channels, the weight " +
           std::to_string(w[1]) + " per group");
    Dims strides = IntsAttr(node, "strides"), dilations = IntsAttr(node, "dilations"), pads = IntsAttr(node, "pads");
    if (strides.empty()) strides = {1, 1};
    if (dilations.empty()) dilations = {1, 1};
    const Dims kernel{w[2], w[3]};
    const std::string auto_pad = StringAttr(node, "auto_pad");
    Dims begin{0, 0}, end{0, 0};
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      for (size_t a = 0; a < 2; ++a) {
        const int64_t in = x[2 + a], s = strides[a];
        const int64_t total =
            std::max<int64_t>(0, ((in + s - 1) / s - 1) * s + (kernel[a] - 1) * dilations[a] + 1 - in);
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
      return Untuned(
          network, index,
          "dilations " + JoinDims(dilations) + " differ between height and width: a sketch takes one dilation", flops);
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

  void MapGemm(int index, Network& network) const {
    const auto& node = Node(index);
    const Dims a = *Shape(node.input(0)), b = *Shape(node.input(1));
    if (a.size() != 2 || b.size() != 2)
      return Untuned(network, index, "Gemm of inputs that are not matrices", std::nullopt);
    const bool trans_a = IntAttr(node, "transA", 0) != 0, trans_b = IntAttr(node, "transB", 0) != 0;
    const int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1], n = trans_b ? b[0] : b[1];
    if ((trans_b ? b[1] : b[0]) != k)
      Fail(NodeWords(index) + ": its inputs " + JoinDims(a) + " and " + JoinDims(b) + " do not multiply");
    // A transposed weight is a layout chosen once, not work: only transposed activations count.
    MapProduct(network, index, 1, m, n, k, trans_a && !IsConstant(node.input(0)),
               trans_b && !IsConstant(node.input(1)));
  }

  // A Transpose that swaps the last two axes of an activation and feeds a MatMul is read as the
  // MatMul's transposition (batch_matmul's transpose_a / transpose_b).
  bool TransposedActivation(const std::string& value) const {
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

  void MapMatMul(int index, Network& network) const {
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

  void MapProduct(Network& network, int index, int64_t b, int64_t m, int64_t n, int64_t k, bool trans_a,
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
  std::pair<std::string, std::optional<double>> Estimate(const onnx::NodeProto& node) const {
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

  std::string path_;
  NetworkLoadOptions options_;
  onnx::ModelProto model_;
  std::unordered_map<std::string, int64_t> opsets_;
  int64_t opset_ = 0;
  std::unordered_set<std::string> constants_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, int> consumers_;  // the first node that reads each value
  std::unordered_map<std::string, Dims> shapes_;
  std::vector<onnx::NodeProto> nodes_;
  std::vector<bool> folded_;  // nodes whose outputs folding computed: shape arithmetic
  std::unordered_map<std::string, onnx_import::ConstTensor> values_;  // small constant tensors by name
};

}  // namespace

bool IsOnnxFile(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension == ".onnx") return true;
  if (extension == ".json") return false;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c != '{' && c != '[';
  return false;  // empty: read as JSON, which names the problem
}

Network LoadOnnxNetwork(const std::string& path, const NetworkLoadOptions& options) {
  return OnnxReader(path, options).Read();
}

}  // namespace tt
