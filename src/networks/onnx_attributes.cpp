#include "networks/onnx_attributes.h"

#include <cstdint>
#include <set>

namespace tt::onnx_import {

std::optional<std::string> WhyAttributesAbsurd(const onnx::NodeProto& node) {
  static const std::set<std::string> kSpatial = {"Conv",       "ConvTranspose", "ConvInteger", "QLinearConv",
                                                 "MaxPool",    "AveragePool",   "LpPool",      "MaxUnpool",
                                                 "MaxRoiPool", "DeformConv"};
  if (!(node.domain().empty() || node.domain() == "ai.onnx") || !kSpatial.count(node.op_type())) return std::nullopt;
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (const auto& attribute : node.attribute()) {
    const std::string& name = attribute.name();
    const int64_t least = name == "strides" || name == "dilations" || name == "kernel_shape" ? 1
                          : name == "pads" || name == "output_padding"                       ? 0
                                                                                             : -1;
    if (least >= 0) {
      for (const int64_t value : attribute.ints())
        if (value < least || value > kLimit)
          return "attribute " + name + " holds " + std::to_string(value) + " (each must be " +
                 (least == 1 ? "at least 1" : "0 or more") + " and at most 2^31)";
    }
    if (name == "group" && (attribute.i() < 1 || attribute.i() > kLimit))
      return "attribute group is " + std::to_string(attribute.i()) + " (it must be at least 1)";
  }
  return std::nullopt;
}

}  // namespace tt::onnx_import
