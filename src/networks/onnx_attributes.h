#pragma once
// Attributes of an ONNX node that ONNX's own shape inference does not check before it computes
// with them: a Conv with strides [0, 0] divides by zero inside libonnx (SIGFPE). Checked on
// every node before the model is handed to libonnx. Internal to the ONNX import.
#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace tt::onnx_import {

// Why the node's spatial attributes are absurd (strides, dilations or kernel_shape below 1,
// negative pads, a group below 1, a value past 2^31), or nullopt when they are usable; only
// the convolution and pooling operators of the default domain are looked at.
std::optional<std::string> WhyAttributesAbsurd(const onnx::NodeProto& node);

}  // namespace tt::onnx_import
