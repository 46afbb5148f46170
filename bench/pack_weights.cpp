// pack_weights n ci h w co kh kw stride pad
//
// Times the one-off packing of a conv2d layer's OIHW weights into the OIHW16o layout that the
// conv2d_oc_vec sketch reads (src/ops/conv_weight_packing.h), on one CPU thread: the cost a
// deployment pays once per model, reported next to the tuned kernel's time. Prints one JSON
// object with the median of repeats totalling at least 0.2 s.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.h"
#include "ops/conv_shape.h"
#include "ops/conv_weight_packing.h"

int main(int argc, char** argv) {
  constexpr const char* kProgram = "pack_weights";
  const char* keys[] = {"n", "ci", "h", "w", "co", "kh", "kw", "stride", "pad"};
  if (argc != 10) {
    std::fprintf(stderr, "usage: pack_weights n ci h w co kh kw stride pad\n");
    return 2;
  }
  std::string shape;
  for (int i = 0; i < 9; ++i)
    shape += std::string(i ? "," : "") + keys[i] + "=" + std::to_string(bench::ParseCount(kProgram, argv[i + 1], keys[i], i == 8 ? 0 : 1));
  const tt::ConvShape s = tt::ConvShape::Of(tt::ParseWorkload("conv2d", shape));
  const std::vector<float> oihw = bench::SmallIntegers(static_cast<size_t>(s.co * s.ci * s.kh * s.kw), 3);
  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  double total = 0;
  size_t packed = 0;
  while (total < 0.2) {
    const auto start = Clock::now();
    packed += tt::PackWeightsByOutputChannel(s, oihw.data()).size();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    times.push_back(seconds);
    total += seconds;
  }
  std::printf("{\"weights\": %zu, \"packed\": %zu, \"median_s\": %.9g, \"repeats\": %zu}\n", oihw.size(),
              packed / times.size(), bench::Median(times), times.size());
  return 0;
}
