#include "ops/conv_weight_packing.h"

namespace tt {
namespace {

int64_t Blocks(const ConvShape& s) { return (s.co + kWeightBlock - 1) / kWeightBlock; }

// Index in OIHW16o of output channel o's weight at tap t (t = (c * KH + ky) * KW + kx).
int64_t PackedIndex(const ConvShape& s, int64_t o, int64_t t) {
  return ((o / kWeightBlock) * s.ci * s.kh * s.kw + t) * kWeightBlock + o % kWeightBlock;
}

}  // namespace

int64_t PackedWeightElements(const ConvShape& s) { return Blocks(s) * s.ci * s.kh * s.kw * kWeightBlock; }

std::vector<float> PackWeightsByOutputChannel(const ConvShape& s, const float* oihw) {
  std::vector<float> packed(static_cast<size_t>(PackedWeightElements(s)), 0.0f);
  const int64_t taps = s.ci * s.kh * s.kw;
  for (int64_t o = 0; o < s.co; ++o)
    for (int64_t t = 0; t < taps; ++t) packed[static_cast<size_t>(PackedIndex(s, o, t))] = oihw[o * taps + t];
  return packed;
}

std::vector<float> UnpackWeightsByOutputChannel(const ConvShape& s, const float* packed) {
  const int64_t taps = s.ci * s.kh * s.kw;
  std::vector<float> oihw(static_cast<size_t>(s.co * taps));
  for (int64_t o = 0; o < s.co; ++o)
    for (int64_t t = 0; t < taps; ++t) oihw[static_cast<size_t>(o * taps + t)] = packed[PackedIndex(s, o, t)];
  return oihw;
}

}  // namespace tt
