#pragma once
// What dnnl_conv and dnnl_network share: a forward-inference convolution whose layouts oneDNN
// picks (format_tag::any), and data moved into those layouts once, outside any timing. The
// algorithm is oneDNN's choice (convolution_auto) unless asked for (convolution_winograd, which
// throws dnnl::error where oneDNN has no Winograd implementation for the shape or the CPU).
#include "oneapi/dnnl/dnnl.hpp"

namespace bench {

inline dnnl::convolution_forward::primitive_desc PreferredConvolution(
    const dnnl::engine& engine, const dnnl::memory::dims& src, const dnnl::memory::dims& weights,
    const dnnl::memory::dims& dst, long stride, long pad,
    dnnl::algorithm algorithm = dnnl::algorithm::convolution_auto) {
  using dnnl::memory;
  const auto f32 = memory::data_type::f32;
  const auto any = memory::format_tag::any;
  const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, memory::desc(src, f32, any),
                                             memory::desc(weights, f32, any), memory::desc(dst, f32, any),
                                             {stride, stride}, {pad, pad}, {pad, pad});
  return dnnl::convolution_forward::primitive_desc(desc, engine);
}

// The memory in the primitive's chosen layout: `user` itself when the layouts agree.
inline dnnl::memory InPrimitiveLayout(dnnl::memory user, const dnnl::memory::desc& wanted, const dnnl::engine& engine,
                                      dnnl::stream& stream) {
  if (user.get_desc() == wanted) return user;
  dnnl::memory converted(wanted, engine);
  dnnl::reorder(user, converted).execute(stream, user, converted);
  stream.wait();
  return converted;
}

}  // namespace bench
