#pragma once
// ONNX models as networks (docs/onnx.md). Only shapes are read, never weights: every Conv, Gemm
// and MatMul that a sketch computes becomes a layer with the shapes ONNX shape inference gives at
// the chosen input shapes; every other node is listed in Network::untuned with why and its FLOPs.
// The ONNX and protobuf types stay inside the onnx_* files of networks/.
#include <string>
#include <string_view>

#include "networks/network.h"

namespace tt {

// Reads the ONNX model at `path`. Throws UserError, one line naming the node (or input, or
// initializer) and the problem, for a file that is not ONNX or is truncated, an opset this
// build cannot read, a dynamic dimension that the options give no value, an external data
// file that is missing or short, or a model whose shapes do not infer.
Network LoadOnnxNetwork(const std::string& path, const NetworkLoadOptions& options);

// Whether `path` is to be read as an ONNX model: a .onnx name, or content that is not JSON.
bool IsOnnxFile(const std::string& path);

}  // namespace tt
