// dnnl_conv [--winograd | --winograd-unchecked] n ci h w co kh kw stride pad [threads=2]
// dnnl_conv --depthwise n c h w kh kw stride pad [threads=2]
//
// --winograd asks for oneDNN's Winograd convolution (algorithm::convolution_winograd) instead of
// its own choice (convolution_auto); where oneDNN has none for the shape or this CPU, it prints
// {"unavailable": ...} and exits 3. --winograd-unchecked times it even where it fails the check
// below, and says so ("check": "failed", with the largest error): what a comparison that
// ignored accuracy would count.
// Times a oneDNN forward-inference convolution, float32, on the CPU: NCHW input and output, OIHW
// weights (GOIHW with groups = c for --depthwise), inputs like tensortune's (small integers in
// [-2, 2]). The primitive is created with format_tag::any so that oneDNN picks its preferred
// layouts; the data are reordered into them once, outside the timed loop, so the timed part is
// the convolution primitive alone (execute plus stream wait, by the wall clock). The first call
// is untimed and checked against a direct CPU reference; then timed calls until they add up to at
// least one second. Prints one JSON object with the median and minimum call time, GFLOPS from the
// median, and the number of timed repeats.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_common.h"
#include "dnnl_common.h"

namespace {
constexpr const char* kProgram = "dnnl_conv";
}  // namespace

#include "oneapi/dnnl/dnnl.hpp"

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

struct ConvSpec {
  bool depthwise = false;
  bool winograd = false;
  bool unchecked = false;  // time even when the check fails
  long n = 0, ci = 0, h = 0, w = 0, co = 0, kh = 0, kw = 0, stride = 0, pad = 0;
  int threads = 2;

  long groups() const { return depthwise ? ci : 1; }
  long oh() const { return (h + 2 * pad - kh) / stride + 1; }
  long ow() const { return (w + 2 * pad - kw) / stride + 1; }
  double flops() const { return 2.0 * n * co * oh() * ow() * (ci / groups()) * kh * kw; }
};

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: dnnl_conv [--winograd | --winograd-unchecked] n ci h w co kh kw stride pad [threads=2]\n"
               "       dnnl_conv --depthwise n c h w kh kw stride pad [threads=2]\n");
  std::exit(2);
}

ConvSpec ParseArgs(int argc, char** argv) {
  ConvSpec s;
  int i = 1;
  if (argc > 1 && std::strcmp(argv[1], "--depthwise") == 0) {
    s.depthwise = true;
    ++i;
  } else if (argc > 1 &&
             (std::strcmp(argv[1], "--winograd") == 0 || std::strcmp(argv[1], "--winograd-unchecked") == 0)) {
    s.winograd = true;
    s.unchecked = std::strcmp(argv[1], "--winograd-unchecked") == 0;
    ++i;
  }
  const int fields = s.depthwise ? 8 : 9;
  if (argc - i != fields && argc - i != fields + 1) Usage();
  s.n = bench::ParseCount(kProgram, argv[i++], "n", 1);
  s.ci = bench::ParseCount(kProgram, argv[i++], s.depthwise ? "c" : "ci", 1);
  s.h = bench::ParseCount(kProgram, argv[i++], "h", 1);
  s.w = bench::ParseCount(kProgram, argv[i++], "w", 1);
  s.co = s.depthwise ? s.ci : bench::ParseCount(kProgram, argv[i++], "co", 1);
  s.kh = bench::ParseCount(kProgram, argv[i++], "kh", 1);
  s.kw = bench::ParseCount(kProgram, argv[i++], "kw", 1);
  s.stride = bench::ParseCount(kProgram, argv[i++], "stride", 1);
  s.pad = bench::ParseCount(kProgram, argv[i++], "pad", 0);
  if (i < argc) s.threads = static_cast<int>(bench::ParseCount(kProgram, argv[i], "threads", 1));
  if (s.h + 2 * s.pad < s.kh || s.w + 2 * s.pad < s.kw) {
    std::fprintf(stderr, "dnnl_conv: the kernel is larger than the padded input\n");
    std::exit(2);
  }
  return s;
}

memory::dims SrcDims(const ConvSpec& s) { return {s.n, s.ci, s.h, s.w}; }
memory::dims DstDims(const ConvSpec& s) { return {s.n, s.co, s.oh(), s.ow()}; }
memory::dims WeightDims(const ConvSpec& s) {
  if (s.depthwise) return {s.groups(), 1, 1, s.kh, s.kw};
  return {s.co, s.ci, s.kh, s.kw};
}
Tag WeightTag(const ConvSpec& s) { return s.depthwise ? Tag::goihw : Tag::oihw; }

size_t Elements(const memory::dims& dims) {
  size_t count = 1;
  for (auto d : dims) count *= static_cast<size_t>(d);
  return count;
}

// Straight loops over NCHW / (G)OIHW; GOIHW with one in and one out channel per group lays the
// weights out exactly as OIHW with co rows of ci/groups channels.
std::vector<double> ReferenceConv(const ConvSpec& s, const std::vector<float>& src, const std::vector<float>& wei) {
  const long cig = s.ci / s.groups(), cog = s.co / s.groups();
  std::vector<double> dst(Elements(DstDims(s)), 0.0);
  for (long b = 0; b < s.n; ++b)
    for (long oc = 0; oc < s.co; ++oc)
      for (long oy = 0; oy < s.oh(); ++oy)
        for (long ox = 0; ox < s.ow(); ++ox) {
          double sum = 0;
          for (long icg = 0; icg < cig; ++icg) {
            const long ic = (oc / cog) * cig + icg;
            for (long ky = 0; ky < s.kh; ++ky) {
              const long iy = oy * s.stride - s.pad + ky;
              if (iy < 0 || iy >= s.h) continue;
              for (long kx = 0; kx < s.kw; ++kx) {
                const long ix = ox * s.stride - s.pad + kx;
                if (ix < 0 || ix >= s.w) continue;
                sum += static_cast<double>(src[((b * s.ci + ic) * s.h + iy) * s.w + ix]) *
                       wei[((oc * cig + icg) * s.kh + ky) * s.kw + kx];
              }
            }
          }
          dst[((b * s.co + oc) * s.oh() + oy) * s.ow() + ox] = sum;
        }
  return dst;
}

// The largest |got - want| / max(1, |want|); the check passes below 1e-3.
double LargestError(const std::vector<float>& got, const std::vector<double>& want) {
  double largest = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double error = std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i]));
    if (error > 1e-3 && largest <= 1e-3)
      std::fprintf(stderr, "dnnl_conv: dst[%zu] = %g, expected %g\n", i, got[i], want[i]);
    largest = std::max(largest, error);
  }
  return largest;
}

}  // namespace

int main(int argc, char** argv) {
  const ConvSpec s = ParseArgs(argc, argv);
  // libgomp reads OMP_NUM_THREADS when it is loaded, before main: the variable is set for
  // anything started later, the call is what sets this process's thread count.
  setenv("OMP_NUM_THREADS", std::to_string(s.threads).c_str(), 1);
  omp_set_num_threads(s.threads);

  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const auto f32 = memory::data_type::f32;

  const memory::desc src_user(SrcDims(s), f32, Tag::nchw);
  const memory::desc wei_user(WeightDims(s), f32, WeightTag(s));
  const memory::desc dst_user(DstDims(s), f32, Tag::nchw);
  dnnl::convolution_forward::primitive_desc pd;
  try {
    pd = bench::PreferredConvolution(
        engine, SrcDims(s), WeightDims(s), DstDims(s), s.stride, s.pad,
        s.winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_auto);
  } catch (const dnnl::error& e) {
    if (!s.winograd) throw;
    std::printf("{\"unavailable\": \"oneDNN has no Winograd convolution for this shape here: %s\"}\n", e.what());
    return 3;
  }
  const dnnl::convolution_forward conv(pd);

  std::vector<float> src = bench::SmallIntegers(Elements(SrcDims(s)), 1);
  std::vector<float> wei = bench::SmallIntegers(Elements(WeightDims(s)), 2);
  std::vector<float> dst(Elements(DstDims(s)), 0.0f);
  memory src_mem(src_user, engine, src.data()), wei_mem(wei_user, engine, wei.data()),
      dst_mem(dst_user, engine, dst.data());

  memory src_conv = bench::InPrimitiveLayout(src_mem, pd.src_desc(), engine, stream);
  memory wei_conv = bench::InPrimitiveLayout(wei_mem, pd.weights_desc(), engine, stream);
  memory dst_conv = dst_user == pd.dst_desc() ? dst_mem : memory(pd.dst_desc(), engine);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src_conv}, {DNNL_ARG_WEIGHTS, wei_conv}, {DNNL_ARG_DST, dst_conv}};

  conv.execute(stream, args);  // warm-up, and the call that is checked
  stream.wait();
  if (dst_conv != dst_mem) {
    dnnl::reorder(dst_conv, dst_mem).execute(stream, dst_conv, dst_mem);
    stream.wait();
  }
  const double error = LargestError(dst, ReferenceConv(s, src, wei));
  const bool checked = error <= 1e-3;
  if (!checked && !s.unchecked) return 1;

  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  double total = 0;
  while (total < 1.0) {
    const auto start = Clock::now();
    conv.execute(stream, args);
    stream.wait();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    total += times.back();
  }

  const double median = bench::Median(times);
  const dnnl_version_t* version = dnnl_version();
  std::printf(
      "{\"op\": \"%s\", \"algorithm\": \"%s\", \"n\": %ld, \"ci\": %ld, \"h\": %ld, \"w\": %ld, \"co\": %ld, \"kh\": "
      "%ld, \"kw\": %ld, "
      "\"stride\": %ld, \"pad\": %ld, \"groups\": %ld, \"oh\": %ld, \"ow\": %ld, \"threads\": %d, "
      "\"impl\": \"%s\", \"onednn\": \"%d.%d.%d\", \"median_s\": %.9g, \"min_s\": %.9g, \"gflops\": %.6g, "
      "\"repeats\": %zu, \"check\": \"%s\", \"largest_error\": %.3g, \"timing\": \"convolution primitive alone "
      "(execute + stream wait, wall clock); reorders to and from oneDNN's chosen layouts outside the timed loop\"}\n",
      s.depthwise ? "depthwise_conv2d" : "conv2d", s.winograd ? "winograd" : "auto", s.n, s.ci, s.h, s.w, s.co, s.kh,
      s.kw, s.stride, s.pad, s.groups(), s.oh(), s.ow(), omp_get_max_threads(), pd.impl_info_str(), version->major,
      version->minor, version->patch, median, *std::min_element(times.begin(), times.end()), s.flops() / median * 1e-9,
      times.size(), checked ? "passed" : "failed", error);
  return 0;
}
