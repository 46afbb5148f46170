// Host-side layout conversions of the public API (ops/channel_blocking does the work).
#include "tensortune/layouts.h"

#include "ops/channel_blocking.h"
#include "ops/launch_plan.h"
#include "ops/winograd.h"
#include "runtime/runtime_internal.h"

namespace tensortune {

namespace {

void CheckDims(Layout layout, const std::vector<int64_t>& dims) {
  for (const int64_t d : dims)
    if (d < 1) throw Error(ErrorCode::kInvalidArgument, "layout dimensions must be positive");
  if (layout == Layout::kKN16n && dims.size() != 2)
    throw Error(ErrorCode::kInvalidArgument, "KN16n takes two dimensions (K, N)");
  if (layout != Layout::kRowMajor && layout != Layout::kNCHW && layout != Layout::kOIHW && layout != Layout::kKN16n &&
      dims.size() != 4)
    throw Error(ErrorCode::kInvalidArgument, std::string(ToString(layout)) + " takes four dimensions");
  if ((layout == Layout::kWinogradF2x2 || layout == Layout::kWinogradF4x4) && (dims[2] != 3 || dims[3] != 3))
    throw Error(ErrorCode::kInvalidArgument, std::string(ToString(layout)) + " holds 3x3 weights");
}

void CheckSize(size_t got, size_t want, Layout layout, const char* what) {
  if (got != want)
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + " in " + ToString(layout) + " must hold " +
                                                 std::to_string(want) + " floats, not " + std::to_string(got));
}

}  // namespace

size_t LayoutElements(Layout layout, const std::vector<int64_t>& dims) {
  CheckDims(layout, dims);
  return tt::LayoutElements(tt::runtime::ToInternal(layout), dims);
}

std::vector<float> ToLayout(const std::vector<float>& plain, Layout layout, const std::vector<int64_t>& dims) {
  CheckDims(layout, dims);
  CheckSize(plain.size(), LayoutElements(PlainLayout(layout), dims), PlainLayout(layout), "the data");
  switch (layout) {
    case Layout::kNCHW16c:
      return tt::BlockChannels(plain.data(), dims[0], dims[1], dims[2] * dims[3]);
    case Layout::kOIHW16o:
      return tt::BlockChannels(plain.data(), 1, dims[0], dims[1] * dims[2] * dims[3]);
    case Layout::kWinogradF2x2:
    case Layout::kWinogradF4x4:
      return tt::TransformWeights(tt::WeightShape(dims), tt::WinogradTileOf(tt::runtime::ToInternal(layout)),
                                  plain.data());
    case Layout::kKN16n:
      return tt::PackColumnPanels(plain.data(), dims[0], dims[1]);
    default:
      return plain;
  }
}

std::vector<float> FromLayout(const std::vector<float>& data, Layout layout, const std::vector<int64_t>& dims) {
  CheckDims(layout, dims);
  CheckSize(data.size(), LayoutElements(layout, dims), layout, "the data");
  switch (layout) {
    case Layout::kNCHW16c:
      return tt::UnblockChannels(data.data(), dims[0], dims[1], dims[2] * dims[3]);
    case Layout::kOIHW16o:
      return tt::UnblockChannels(data.data(), 1, dims[0], dims[1] * dims[2] * dims[3]);
    case Layout::kWinogradF2x2:
    case Layout::kWinogradF4x4:
      return tt::UntransformWeights(tt::WeightShape(dims), tt::WinogradTileOf(tt::runtime::ToInternal(layout)),
                                    data.data());
    case Layout::kKN16n:
      return tt::UnpackColumnPanels(data.data(), dims[0], dims[1]);
    default:
      return data;
  }
}

std::vector<float> PackWeights(const Argument& argument, const std::vector<float>& plain) {
  return ToLayout(plain, argument.layout, argument.dims);
}

std::vector<float> ConvertActivations(const Argument& argument, const std::vector<float>& plain) {
  return ToLayout(plain, argument.layout, argument.dims);
}

std::vector<float> ToPlain(const Argument& argument, const std::vector<float>& data) {
  return FromLayout(data, argument.layout, argument.dims);
}

}  // namespace tensortune
