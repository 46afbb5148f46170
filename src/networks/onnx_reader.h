#pragma once
// The reader behind LoadOnnxNetwork (onnx_model.h), internal to the ONNX import: it sees ONNX's
// and protobuf's types. Its two jobs, one file each: onnx_model.cpp reads the file, the graph and
// its shapes (inference and folding); onnx_layers.cpp maps each node to a layer, or says why it is
// not tuned and estimates its FLOPs.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "networks/network.h"
#include "networks/onnx_fold.h"

namespace tt::onnx_import {

using Dims = std::vector<int64_t>;

std::string JoinDims(const Dims& dims, const char* separator = "x");
// The product of dims[from:], as a double (no overflow).
double Product(const Dims& dims, size_t from = 0);
bool IsDefaultDomain(const std::string& domain);

class OnnxReader {
 public:
  OnnxReader(std::string path, const NetworkLoadOptions& options) : path_(std::move(path)), options_(options) {}

  Network Read();

 private:
  const onnx::GraphProto& graph() const { return model_.graph(); }
  // The model's nodes as read; the graph itself loses the nodes that folding computes.
  const onnx::NodeProto& Node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  int NodeCount() const { return static_cast<int>(nodes_.size()); }

  [[noreturn]] void Fail(const std::string& problem) const { throw UserError("ONNX model " + path_ + ": " + problem); }

  std::string NodeLabel(int index) const;
  std::string NodeWords(int index) const;
  static std::string OpName(const onnx::NodeProto& node);

  // --- the file ---------------------------------------------------------------------------

  void Parse();

  void CheckOpsets();

  // Producers, consumers, constants; every node input must exist before the node.
  void IndexGraph();

  std::string UsedBy(const std::string& value) const;

  // --- input shapes -----------------------------------------------------------------------

  // Sets every graph input's dimensions; returns the batch the shapes hold.
  int64_t FixInputShapes();

  // --- external data ----------------------------------------------------------------------

  // Every external data file must be there and long enough; nothing is read from them but
  // small integer tensors, which may hold shapes (a Reshape's target).
  void CheckExternalData();

  // --- shapes -----------------------------------------------------------------------------

  // Shape inference, then folding of the shape arithmetic whose values it makes known (a
  // Reshape's target computed from Shape nodes), again until nothing more folds: ONNX 1.12
  // does not carry computed values into a Reshape's target by itself.
  void InferAndFold();

  void RunShapeInference();

  // "[ShapeInferenceError] Inference error(s): (op_type:Conv, node name: c1): [ShapeInferenceError] why"
  // becomes "node 'c1' (Conv): why".
  static std::string InferenceMessage(const std::string& what);

  void IndexShapes();

  std::optional<Dims> Shape(const std::string& value) const;

  // Why a value's shape is unknown: the first node upstream whose inputs are known and whose
  // outputs are not.
  std::string WhyUnknown(std::string value) const;

  bool IsConstant(const std::string& value) const { return constants_.count(value) > 0; }

  // --- nodes ------------------------------------------------------------------------------

  int64_t IntAttr(const onnx::NodeProto& node, const char* name, int64_t fallback) const;
  Dims IntsAttr(const onnx::NodeProto& node, const char* name) const;
  std::string StringAttr(const onnx::NodeProto& node, const char* name) const;

  void Untuned(Network& network, int index, std::string why, std::optional<double> flops) const;

  // A layer when some sketch computes the workload; else the node is listed with the reason.
  void Tuned(Network& network, int index, const std::string& op, const std::string& shape,
             std::vector<std::string> flags, double flops) const;

  void MapNode(int index, Network& network) const;

  void MapConv(int index, Network& network) const;

  void MapGemm(int index, Network& network) const;

  // A Transpose that swaps the last two axes of an activation and feeds a MatMul is read as the
  // MatMul's transposition (batch_matmul's transpose_a / transpose_b).
  bool TransposedActivation(const std::string& value) const;

  void MapMatMul(int index, Network& network) const;

  void MapProduct(Network& network, int index, int64_t b, int64_t m, int64_t n, int64_t k, bool trans_a,
                  bool trans_b) const;

  // Why a node of ONNX's own domain is not tuned, and its FLOPs (estimates: one per output
  // element for elementwise operators; none for data movement; see docs/onnx.md).
  std::pair<std::string, std::optional<double>> Estimate(const onnx::NodeProto& node) const;

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

}  // namespace tt::onnx_import
