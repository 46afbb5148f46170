#include "ops/channel_blocking.h"

namespace tt {
namespace {

// Index in [N][ceil(C/16)][P][16] of channel c's element e of batch entry b.
int64_t BlockedIndex(int64_t b, int64_t c, int64_t e, int64_t channels, int64_t per_channel) {
  return ((b * ChannelBlocks(channels) + c / kChannelBlock) * per_channel + e) * kChannelBlock + c % kChannelBlock;
}

int64_t Taps(const ConvShape& s) { return s.ci * s.kh * s.kw; }

}  // namespace

int64_t ChannelBlocks(int64_t channels) { return (channels + kChannelBlock - 1) / kChannelBlock; }

int64_t BlockedElements(int64_t n, int64_t channels, int64_t per_channel) {
  return n * ChannelBlocks(channels) * per_channel * kChannelBlock;
}

std::vector<float> BlockChannels(const float* plain, int64_t n, int64_t channels, int64_t per_channel) {
  std::vector<float> blocked(static_cast<size_t>(BlockedElements(n, channels, per_channel)), 0.0f);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t e = 0; e < per_channel; ++e)
        blocked[static_cast<size_t>(BlockedIndex(b, c, e, channels, per_channel))] =
            plain[(b * channels + c) * per_channel + e];
  return blocked;
}

std::vector<float> UnblockChannels(const float* blocked, int64_t n, int64_t channels, int64_t per_channel) {
  std::vector<float> plain(static_cast<size_t>(n * channels * per_channel));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t e = 0; e < per_channel; ++e)
        plain[static_cast<size_t>((b * channels + c) * per_channel + e)] =
            blocked[BlockedIndex(b, c, e, channels, per_channel)];
  return plain;
}

int64_t PackedWeightElements(const ConvShape& s) { return BlockedElements(1, s.co, Taps(s)); }

std::vector<float> PackWeightsByOutputChannel(const ConvShape& s, const float* oihw) {
  return BlockChannels(oihw, 1, s.co, Taps(s));
}

std::vector<float> UnpackWeightsByOutputChannel(const ConvShape& s, const float* packed) {
  return UnblockChannels(packed, 1, s.co, Taps(s));
}

int64_t ColumnPanelElements(int64_t k, int64_t n) { return BlockedElements(1, n, k); }

std::vector<float> PackColumnPanels(const float* kn, int64_t k, int64_t n) {
  std::vector<float> panels(static_cast<size_t>(ColumnPanelElements(k, n)), 0.0f);
  for (int64_t row = 0; row < k; ++row)
    for (int64_t column = 0; column < n; ++column)
      panels[static_cast<size_t>(BlockedIndex(0, column, row, n, k))] = kn[row * n + column];
  return panels;
}

std::vector<float> UnpackColumnPanels(const float* panels, int64_t k, int64_t n) {
  std::vector<float> kn(static_cast<size_t>(k * n));
  for (int64_t row = 0; row < k; ++row)
    for (int64_t column = 0; column < n; ++column)
      kn[static_cast<size_t>(row * n + column)] = panels[BlockedIndex(0, column, row, n, k)];
  return kn;
}

}  // namespace tt
