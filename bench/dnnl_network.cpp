// dnnl_network FILE [threads=2] [min_seconds=1]
//
// Times a network's layers with oneDNN the way `tensortune run-network` times tuned kernels: all
// layers in network order, again and again, each layer's time taken where it runs in the
// sequence (so that its weights and input come from wherever the layers before it left them,
// not from a cache warmed by a loop over that layer alone). FILE has one layer per line, in
// network order (repeated layers repeated):
//   conv n ci h w co kh kw stride pad
//   dw n c h w kh kw stride pad
//   gemm m n k
// Convolutions are oneDNN primitives with the layouts oneDNN picks (format_tag::any), their data
// reordered into them once, outside the timing; a gemm is dnnl_sgemm. Each layer has its own
// buffers. The first pass is untimed; passes repeat until they add up to min_seconds. Prints
// one JSON object: each layer's median time and the median time of a whole pass.

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_common.h"
#include "dnnl_common.h"
#include "oneapi/dnnl/dnnl.h"

namespace {

constexpr const char* kProgram = "dnnl_network";
using dnnl::memory;
using Tag = memory::format_tag;

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", kProgram, why.c_str());
  std::exit(2);
}

struct Layer {
  std::string line;
  std::function<void()> run;  // one call, finished when it returns
};

// A gemm layer's host matrices (a convolution's memories live in its primitive's arguments).
struct Held {
  std::vector<std::vector<float>> host;
};

memory::dim Next(std::istringstream& in, const std::string& line, const char* what) {
  long value = 0;
  if (!(in >> value) || value < 0) Fail("bad " + std::string(what) + " in '" + line + "'");
  return value;
}

Layer Convolution(const std::string& line, std::istringstream& in, bool depthwise, const dnnl::engine& engine,
                  dnnl::stream& stream) {
  const memory::dim n = Next(in, line, "n"), ci = Next(in, line, "c"), h = Next(in, line, "h"), w = Next(in, line, "w");
  const memory::dim co = depthwise ? ci : Next(in, line, "co");
  const memory::dim kh = Next(in, line, "kh"), kw = Next(in, line, "kw"), stride = Next(in, line, "stride"),
                    pad = Next(in, line, "pad");
  if (n < 1 || ci < 1 || kh < 1 || kw < 1 || stride < 1 || h + 2 * pad < kh || w + 2 * pad < kw)
    Fail("bad shape '" + line + "'");
  const memory::dims src{n, ci, h, w}, dst{n, co, (h + 2 * pad - kh) / stride + 1, (w + 2 * pad - kw) / stride + 1};
  const memory::dims wei = depthwise ? memory::dims{ci, 1, 1, kh, kw} : memory::dims{co, ci, kh, kw};
  const auto pd = bench::PreferredConvolution(engine, src, wei, dst, stride, pad);
  const auto placed = [&](const memory::dims& dims, Tag tag, const memory::desc& wanted, uint64_t seed) {
    size_t count = 1;
    for (auto d : dims) count *= static_cast<size_t>(d);
    // oneDNN owns the plain buffer too: it is the layer's own when no reorder is needed.
    memory user(memory::desc(dims, memory::data_type::f32, tag), engine);
    const std::vector<float> host = bench::SmallIntegers(count, seed);
    std::memcpy(user.get_data_handle(), host.data(), count * sizeof(float));
    return bench::InPrimitiveLayout(user, wanted, engine, stream);
  };
  const memory s = placed(src, Tag::nchw, pd.src_desc(), 1);
  const memory k = placed(wei, depthwise ? Tag::goihw : Tag::oihw, pd.weights_desc(), 2);
  const memory d(pd.dst_desc(), engine);
  const dnnl::convolution_forward conv(pd);
  const std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, k}, {DNNL_ARG_DST, d}};
  return {line, [conv, args, &stream] {
            conv.execute(stream, args);
            stream.wait();
          }};
}

Layer Gemm(const std::string& line, std::istringstream& in, std::vector<Held>& held) {
  const long m = Next(in, line, "m"), n = Next(in, line, "n"), k = Next(in, line, "k");
  if (m < 1 || n < 1 || k < 1) Fail("bad shape '" + line + "'");
  Held& h = held.emplace_back();
  h.host = {bench::SmallIntegers(static_cast<size_t>(m * k), 1), bench::SmallIntegers(static_cast<size_t>(k * n), 2),
            std::vector<float>(static_cast<size_t>(m * n))};
  float *a = h.host[0].data(), *b = h.host[1].data(), *c = h.host[2].data();
  return {line, [=] {
            if (dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) != dnnl_success) Fail("dnnl_sgemm failed");
          }};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: dnnl_network FILE [threads=2] [min_seconds=1]\n");
    return 2;
  }
  const int threads = argc > 2 ? static_cast<int>(bench::ParseCount(kProgram, argv[2], "threads", 1)) : 2;
  const double min_seconds = argc > 3 ? std::atof(argv[3]) : 1.0;
  setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
  omp_set_num_threads(threads);

  std::ifstream file(argv[1]);
  if (!file) Fail(std::string("cannot read ") + argv[1]);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::vector<Held> held;  // moving a vector keeps its elements where they are: the gemms point into them
  std::vector<Layer> layers;
  for (std::string line; std::getline(file, line);) {
    std::istringstream in(line);
    std::string op;
    if (!(in >> op)) continue;
    if (op == "conv" || op == "dw")
      layers.push_back(Convolution(line, in, op == "dw", engine, stream));
    else if (op == "gemm")
      layers.push_back(Gemm(line, in, held));
    else
      Fail("unknown layer '" + line + "'");
  }
  if (layers.empty()) Fail("no layers in " + std::string(argv[1]));

  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> times(layers.size());
  std::vector<double> passes;
  double total = 0;
  for (int pass = 0; pass == 0 || total < min_seconds; ++pass) {
    const auto start = Clock::now();
    for (size_t i = 0; i < layers.size(); ++i) {
      const auto t0 = Clock::now();
      layers[i].run();
      if (pass > 0) times[i].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    if (pass == 0) continue;  // warm-up
    passes.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    total += passes.back();
  }
  std::printf("{\"threads\": %d, \"passes\": %zu, \"sequence_median_s\": %.9g, \"layers\": [", threads, passes.size(),
              bench::Median(passes));
  for (size_t i = 0; i < layers.size(); ++i)
    std::printf("%s{\"layer\": \"%s\", \"median_s\": %.9g}", i ? ", " : "", layers[i].line.c_str(),
                bench::Median(times[i]));
  std::printf("]}\n");
  return 0;
}
