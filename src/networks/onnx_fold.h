#pragma once
// Small constant tensors of an ONNX graph and the shape arithmetic that computes them
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as PyTorch exports x.view(x.size(0), -1)).
// ONNX 1.12's shape inference does not carry such computed values into a Reshape's target, so
// onnx_model.cpp folds them into constants once the input shapes are fixed. Internal to the ONNX
// import (it sees ONNX's types); nothing here reads weights larger than kMaxFoldedElements.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tt::onnx_import {

constexpr int64_t kMaxFoldedElements = 4096;

// A small tensor's type (onnx::TensorProto::DataType), dimensions and elements, row-major.
// Integers up to 2^53 are exact as doubles, far beyond any shape.
struct ConstTensor {
  int32_t type = 0;
  std::vector<int64_t> dims;
  std::vector<double> data;
};

// The tensor's value when it is small, held in the model (not in external data) and of a type
// the folding computes with (integers, bool, float, double); nullopt otherwise.
std::optional<ConstTensor> ReadTensor(const onnx::TensorProto& tensor);
onnx::TensorProto WriteTensor(const std::string& name, const ConstTensor& value);

// Element types and counts (onnx_tensor.cpp). Integer types, then those the folding computes with.
bool IsInteger(int32_t type);
bool Supported(int32_t type);
// The elements of a tensor of `dims`; past kMaxFoldedElements (or a negative dimension) some count
// beyond it, without overflow.
int64_t Elements(const std::vector<int64_t>& dims);
// A value converted to an element type: integers truncate toward zero, bool is "not zero", float rounds.
double Convert(double v, int32_t type);
// Saturating: INT64_MAX ("to the end" in a Slice) is 2^63 as a double, beyond int64_t.
int64_t AsInt(double v);

// The outputs of `node` when every one of them can be computed from known values (`values`,
// by name) and, for Shape and Size, known shapes (`shape_of`); nullopt otherwise. Only ONNX's
// own operators on small tensors.
using ShapeLookup = std::function<std::optional<std::vector<int64_t>>(const std::string&)>;
std::optional<std::vector<ConstTensor>> Fold(const onnx::NodeProto& node,
                                             const std::unordered_map<std::string, ConstTensor>& values,
                                             const ShapeLookup& shape_of);

}  // namespace tt::onnx_import
