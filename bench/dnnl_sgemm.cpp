// dnnl_sgemm [--inner-product] M N K [threads=2]
//
// Times oneDNN's dnnl_sgemm on C[M][N] = A[M][K] * B[K][N], row-major float32, with inputs like
// tensortune's; the same protocol and JSON as blas_sgemm (bench_common.h, TimeSgemm). With
// --inner-product, the same product as oneDNN's inner product (a dense layer: B the weights,
// N outputs of K inputs), B reordered once, outside the timing, into the layout oneDNN picks:
// what a deployed model's dense layer gets, as tensortune's gemm_rows_panels packs B once.

#include <omp.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_common.h"
#include "dnnl_common.h"
#include "oneapi/dnnl/dnnl.h"

namespace {

// C = A x B through an inner product whose weights (B, O x I = N x K stored as I x O: "io")
// oneDNN lays out as it prefers.
std::function<void()> InnerProduct(long m, long n, long k, const std::vector<float>& a, const std::vector<float>& b,
                                   std::vector<float>& c) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const memory::desc src({m, k}, f32, Tag::nc), dst({m, n}, f32, Tag::nc);
  const dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src,
                                               memory::desc({n, k}, f32, Tag::any), dst);
  const dnnl::inner_product_forward::primitive_desc pd(desc, engine);
  const memory weights_user({{n, k}, f32, Tag::io}, engine, const_cast<float*>(b.data()));
  const memory weights = bench::InPrimitiveLayout(weights_user, pd.weights_desc(), engine, stream);
  const memory src_mem(src, engine, const_cast<float*>(a.data())), dst_mem(dst, engine, c.data());
  const dnnl::inner_product_forward product(pd);
  return [=] {
    product.execute(stream, {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst_mem}});
    stream.wait();
  };
}

}  // namespace

int main(int argc, char** argv) {
  constexpr const char* kProgram = "dnnl_sgemm";
  const bool inner_product = argc > 1 && std::strcmp(argv[1], "--inner-product") == 0;
  if (inner_product) --argc, ++argv;
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: dnnl_sgemm [--inner-product] M N K [threads=2]\n");
    return 2;
  }
  const long m = bench::ParseCount(kProgram, argv[1], "M", 1), n = bench::ParseCount(kProgram, argv[2], "N", 1),
             k = bench::ParseCount(kProgram, argv[3], "K", 1);
  const int threads = argc == 5 ? static_cast<int>(bench::ParseCount(kProgram, argv[4], "threads", 1)) : 2;
  omp_set_num_threads(threads);

  const std::vector<float> a = bench::SmallIntegers(static_cast<size_t>(m * k), 1);
  const std::vector<float> b = bench::SmallIntegers(static_cast<size_t>(k * n), 2);
  std::vector<float> c(static_cast<size_t>(m * n), 0.0f);
  bool failed = false;
  auto sgemm = [&] {
    failed |= dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n) != dnnl_success;
  };
  const int code = bench::TimeSgemm(kProgram, m, n, k, threads, a, b, c,
                                    inner_product ? InnerProduct(m, n, k, a, b, c) : std::function<void()>(sgemm));
  if (failed) std::fprintf(stderr, "dnnl_sgemm: the call failed\n");
  return failed ? 1 : code;
}
