// pack_weights n ci h w co kh kw stride pad
// pack_weights --depthwise n c h w kh kw stride pad
//
// Times, on one CPU thread, the layout conversions that the channel-vector sketches need
// outside their timed kernel (src/ops/channel_blocking.h): for conv2d_oc_vec the one-off
// packing of the OIHW weights into OIHW16o, which a deployment pays once per model; for
// depthwise_conv2d_nchwc (--depthwise) the conversion of the input from NCHW to NCHW16c plus
// that of the output back, paid per inference unless the neighbouring layers keep the blocked
// layout. Prints one JSON object with the median of repeats totalling at least 0.2 s.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "ops/channel_blocking.h"
#include "ops/conv_shape.h"

namespace {

constexpr const char* kProgram = "pack_weights";

double MedianSeconds(const std::function<void()>& work) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  double total = 0;
  while (total < 0.2) {
    const auto start = Clock::now();
    work();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    times.push_back(seconds);
    total += seconds;
  }
  return bench::Median(times);
}

}  // namespace

int main(int argc, char** argv) {
  const bool depthwise = argc > 1 && std::strcmp(argv[1], "--depthwise") == 0;
  const std::vector<const char*> keys =
      depthwise ? std::vector<const char*>{"n", "c", "h", "w", "kh", "kw", "stride", "pad"}
                : std::vector<const char*>{"n", "ci", "h", "w", "co", "kh", "kw", "stride", "pad"};
  const int first = depthwise ? 2 : 1;
  if (argc != first + static_cast<int>(keys.size())) {
    std::fprintf(stderr,
                 "usage: pack_weights n ci h w co kh kw stride pad\n"
                 "       pack_weights --depthwise n c h w kh kw stride pad\n");
    return 2;
  }
  std::string shape;
  for (size_t i = 0; i < keys.size(); ++i)
    shape += std::string(i ? "," : "") + keys[i] + "=" +
             std::to_string(bench::ParseCount(kProgram, argv[first + i], keys[i], i + 1 == keys.size() ? 0 : 1));
  const tt::ConvShape s = tt::ConvShape::Of(tt::ParseWorkload(depthwise ? "depthwise_conv2d" : "conv2d", shape));
  size_t sink = 0;
  if (!depthwise) {
    const std::vector<float> oihw = bench::SmallIntegers(static_cast<size_t>(s.co * s.ci * s.kh * s.kw), 3);
    const double weights_s = MedianSeconds([&] { sink += tt::PackWeightsByOutputChannel(s, oihw.data()).size(); });
    std::printf("{\"what\": \"weights OIHW -> OIHW16o\", \"median_s\": %.9g, \"sink\": %zu}\n", weights_s, sink);
    return 0;
  }
  const std::vector<float> input = bench::SmallIntegers(static_cast<size_t>(s.input_elements()), 3);
  const std::vector<float> output(static_cast<size_t>(tt::BlockedElements(s.n, s.co, s.oh * s.ow)), 1.0f);
  const double in_s = MedianSeconds([&] { sink += tt::BlockChannels(input.data(), s.n, s.ci, s.h * s.w).size(); });
  const double out_s =
      MedianSeconds([&] { sink += tt::UnblockChannels(output.data(), s.n, s.co, s.oh * s.ow).size(); });
  std::printf(
      "{\"what\": \"input NCHW -> NCHW16c + output NCHW16c -> NCHW\", \"median_s\": %.9g, \"input_s\": %.9g, "
      "\"output_s\": %.9g, \"sink\": %zu}\n",
      in_s + out_s, in_s, out_s, sink);
  return 0;
}
