// ONNX models as networks: reading the file, its graph and its shapes (onnx_reader.h).
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
#include "networks/onnx_reader.h"

namespace tt {
namespace onnx_import {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOnnxDomain = "";      // also spelled "ai.onnx"
constexpr int64_t kMaxInlinedShapeTensor = 4096;  // elements of an external integer tensor read for shapes

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

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

}  // namespace

std::string JoinDims(const Dims& dims, const char* separator) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? separator : "") + std::to_string(dims[i]);
  return dims.empty() ? "a scalar" : text;
}

double Product(const Dims& dims, size_t from) {
  double p = 1;
  for (auto it = dims.begin() + static_cast<ptrdiff_t>(std::min(from, dims.size())); it != dims.end(); ++it)
    p *= static_cast<double>(*it);
  return p;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

Network OnnxReader::Read() {
  Parse();
  CheckOpsets();
  IndexGraph();
  // Absurd attributes (a zero stride) would crash libonnx's shape inference: refused first.
  for (int i = 0; i < NodeCount(); ++i)
    if (auto why = WhyAttributesAbsurd(Node(i))) Fail(NodeWords(i) + ": " + *why);
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

std::string OnnxReader::NodeLabel(int index) const {
  const auto& node = Node(index);
  const std::string op = OpName(node);
  return node.name().empty() ? "#" + std::to_string(index) + " (" + op + ")" : node.name();
}

std::string OnnxReader::NodeWords(int index) const {
  const auto& node = Node(index);
  return node.name().empty() ? "node " + NodeLabel(index) : "node '" + node.name() + "' (" + OpName(node) + ")";
}

std::string OnnxReader::OpName(const onnx::NodeProto& node) {
  return IsDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

void OnnxReader::Parse() {
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

void OnnxReader::CheckOpsets() {
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
void OnnxReader::IndexGraph() {
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
        Fail(NodeWords(i) + ": its input '" + input +
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

std::string OnnxReader::UsedBy(const std::string& value) const {
  const auto it = consumers_.find(value);
  return it == consumers_.end() ? "used by no node" : "used by " + NodeWords(it->second);
}

// Sets every graph input's dimensions; returns the batch the shapes hold.
int64_t OnnxReader::FixInputShapes() {
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
         "leading dimension, and input '" + inputs.front()->name() + "' holds batch " + std::to_string(*first_leading) +
         " (give no --batch, or export the model with a dynamic batch)");
  return first_leading.value_or(options_.batch.value_or(1));
}

// Every external data file must be there and long enough; nothing is read from them but
// small integer tensors, which may hold shapes (a Reshape's target).
void OnnxReader::CheckExternalData() {
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

// Shape inference, then folding of the shape arithmetic whose values it makes known (a
// Reshape's target computed from Shape nodes), again until nothing more folds: ONNX 1.12
// does not carry computed values into a Reshape's target by itself.
void OnnxReader::InferAndFold() {
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

void OnnxReader::RunShapeInference() {
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
std::string OnnxReader::InferenceMessage(const std::string& what) {
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

void OnnxReader::IndexShapes() {
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

std::optional<Dims> OnnxReader::Shape(const std::string& value) const {
  const auto it = shapes_.find(value);
  return it == shapes_.end() ? std::nullopt : std::optional(it->second);
}

// Why a value's shape is unknown: the first node upstream whose inputs are known and whose
// outputs are not.
std::string OnnxReader::WhyUnknown(std::string value) const {
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

}  // namespace onnx_import

bool IsOnnxFile(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
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
  return onnx_import::OnnxReader(path, options).Read();
}

}  // namespace tt
