// Small constant tensors of an ONNX graph: read from and written to ONNX's TensorProto, their
// element types and counts (onnx_fold.h).
#include <cmath>
#include <cstring>

#include "networks/onnx_fold.h"

namespace tt::onnx_import {
namespace {

using T = onnx::TensorProto;
using Dims = std::vector<int64_t>;

template <typename Raw>
std::vector<double> FromRaw(const std::string& raw, int64_t count) {
  std::vector<double> out;
  if (raw.size() != static_cast<size_t>(count) * sizeof(Raw)) return {};
  for (int64_t i = 0; i < count; ++i) {
    Raw v;
    std::memcpy(&v, raw.data() + i * static_cast<int64_t>(sizeof(Raw)), sizeof(Raw));
    out.push_back(static_cast<double>(v));
  }
  return out;
}

}  // namespace

bool IsInteger(int32_t type) {
  return type == T::INT64 || type == T::INT32 || type == T::INT16 || type == T::INT8 || type == T::UINT8 ||
         type == T::UINT16 || type == T::UINT32 || type == T::UINT64;
}
bool Supported(int32_t type) { return IsInteger(type) || type == T::BOOL || type == T::FLOAT || type == T::DOUBLE; }

int64_t Elements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > kMaxFoldedElements * 16 / d)) return kMaxFoldedElements + 1;
    n *= d;
  }
  return n;
}

// A value converted to `type`: integers truncate toward zero, bool is "not zero", float rounds.
double Convert(double v, int32_t type) {
  if (type == T::BOOL) return v != 0 ? 1 : 0;
  if (IsInteger(type)) return std::isfinite(v) ? std::trunc(v) : 0;
  if (type == T::FLOAT) return static_cast<double>(static_cast<float>(v));
  return v;
}

// Saturating: INT64_MAX ("to the end" in a Slice) is 2^63 as a double, beyond int64_t.
int64_t AsInt(double v) {
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(v);
}

std::optional<ConstTensor> ReadTensor(const onnx::TensorProto& t) {
  if (t.data_location() == T::EXTERNAL || !Supported(t.data_type()) || t.has_segment()) return std::nullopt;
  const Dims dims(t.dims().begin(), t.dims().end());
  const int64_t n = Elements(dims);
  if (n > kMaxFoldedElements) return std::nullopt;
  ConstTensor out{t.data_type(), dims, {}};
  const std::string& raw = t.raw_data();
  switch (t.data_type()) {
    case T::INT64:
      out.data = t.has_raw_data() ? FromRaw<int64_t>(raw, n)
                                  : std::vector<double>(t.int64_data().begin(), t.int64_data().end());
      break;
    case T::UINT64:
    case T::UINT32:
      out.data = t.has_raw_data() ? (t.data_type() == T::UINT64 ? FromRaw<uint64_t>(raw, n) : FromRaw<uint32_t>(raw, n))
                                  : std::vector<double>(t.uint64_data().begin(), t.uint64_data().end());
      break;
    case T::FLOAT:
      out.data =
          t.has_raw_data() ? FromRaw<float>(raw, n) : std::vector<double>(t.float_data().begin(), t.float_data().end());
      break;
    case T::DOUBLE:
      out.data = t.has_raw_data() ? FromRaw<double>(raw, n)
                                  : std::vector<double>(t.double_data().begin(), t.double_data().end());
      break;
    case T::INT32:
      out.data = t.has_raw_data() ? FromRaw<int32_t>(raw, n)
                                  : std::vector<double>(t.int32_data().begin(), t.int32_data().end());
      break;
    case T::INT16:
      out.data = t.has_raw_data() ? FromRaw<int16_t>(raw, n)
                                  : std::vector<double>(t.int32_data().begin(), t.int32_data().end());
      break;
    case T::UINT16:
      out.data = t.has_raw_data() ? FromRaw<uint16_t>(raw, n)
                                  : std::vector<double>(t.int32_data().begin(), t.int32_data().end());
      break;
    case T::INT8:
      out.data = t.has_raw_data() ? FromRaw<int8_t>(raw, n)
                                  : std::vector<double>(t.int32_data().begin(), t.int32_data().end());
      break;
    case T::UINT8:
    case T::BOOL:
      out.data = t.has_raw_data() ? FromRaw<uint8_t>(raw, n)
                                  : std::vector<double>(t.int32_data().begin(), t.int32_data().end());
      break;
    default:
      return std::nullopt;
  }
  if (static_cast<int64_t>(out.data.size()) != n) return std::nullopt;
  return out;
}

onnx::TensorProto WriteTensor(const std::string& name, const ConstTensor& value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(value.type);
  for (int64_t d : value.dims) t.add_dims(d);
  for (double v : value.data) {
    switch (value.type) {
      case T::INT64:
        t.add_int64_data(AsInt(v));
        break;
      case T::UINT64:
      case T::UINT32:
        t.add_uint64_data(static_cast<uint64_t>(v));
        break;
      case T::FLOAT:
        t.add_float_data(static_cast<float>(v));
        break;
      case T::DOUBLE:
        t.add_double_data(v);
        break;
      default:
        t.add_int32_data(static_cast<int32_t>(v));
        break;
    }
  }
  return t;
}

}  // namespace tt::onnx_import
