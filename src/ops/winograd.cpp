#include "ops/winograd.h"

#include <stdexcept>

#include "ops/channel_blocking.h"

namespace tt {
namespace {

WinogradMatrices F2() {
  WinogradMatrices w;
  w.m = 2;
  w.alpha = 4;
  w.bt = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
  w.g = {1, 0, 0, 1, 1, 1, 1, -1, 1, 0, 0, 1};
  // A^T = [1 1 1 0; 0 1 -1 -1] times D = diag(1, 1/2, 1/2, 1).
  w.at = {1, 0.5, 0.5, 0, 0, 0.5, -0.5, -1};
  return w;
}

WinogradMatrices F4() {
  WinogradMatrices w;
  w.m = 4;
  w.alpha = 6;
  w.bt = {4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
          0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1};
  w.g = {1, 0, 0, 1, 1, 1, 1, -1, 1, 1, 2, 4, 1, -2, 4, 0, 0, 1};
  // A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] times
  // D = diag(1/4, -1/6, -1/6, 1/24, 1/24, 1).
  const double d[6] = {1.0 / 4, -1.0 / 6, -1.0 / 6, 1.0 / 24, 1.0 / 24, 1};
  const double at[24] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 6; ++k) w.at.push_back(at[r * 6 + k] * d[k]);
  return w;
}

// Index of output channel o's component k of input channel c in [COB][alpha^2][CI][16].
int64_t TransformedIndex(const ConvShape& s, int64_t components, int64_t o, int64_t k, int64_t c) {
  return ((o / kChannelBlock * components + k) * s.ci + c) * kChannelBlock + o % kChannelBlock;
}

void CheckKernel(const ConvShape& s) {
  if (s.kh != 3 || s.kw != 3) throw std::invalid_argument("Winograd weights need a 3x3 kernel");
}

}  // namespace

const WinogradMatrices& WinogradF(int m) {
  static const WinogradMatrices f2 = F2(), f4 = F4();
  if (m == 2) return f2;
  if (m == 4) return f4;
  throw std::invalid_argument("Winograd tiles are 2 or 4 outputs wide");
}

int64_t WinogradWeightElements(const ConvShape& s, int m) {
  const int64_t alpha = WinogradF(m).alpha;
  return ChannelBlocks(s.co) * kChannelBlock * alpha * alpha * s.ci;
}

std::vector<float> TransformWeights(const ConvShape& s, int m, const float* oihw) {
  CheckKernel(s);
  const WinogradMatrices& f = WinogradF(m);
  const int a = f.alpha;
  std::vector<float> out(static_cast<size_t>(WinogradWeightElements(s, m)), 0.0f);
  for (int64_t o = 0; o < s.co; ++o)
    for (int64_t c = 0; c < s.ci; ++c) {
      const float* g = oihw + (o * s.ci + c) * 9;
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < a; ++j) {
          double u = 0;  // (G' g G'^T)[i][j]
          for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 3; ++x) u += f.g[i * 3 + y] * g[y * 3 + x] * f.g[j * 3 + x];
          out[static_cast<size_t>(TransformedIndex(s, a * a, o, i * a + j, c))] = static_cast<float>(u);
        }
    }
  return out;
}

std::vector<float> UntransformWeights(const ConvShape& s, int m, const float* transformed) {
  CheckKernel(s);
  const int a = WinogradF(m).alpha;
  std::vector<float> oihw(static_cast<size_t>(s.co * s.ci * 9));
  // Row y of g from rows of U': 0, (1 - 2) / 2, alpha - 1 (G' rows 0, 1, 2 and alpha - 1 are
  // [1 0 0], [1 1 1], [1 -1 1], [0 0 1] for both tiles).
  const auto pick = [a](int y, auto value) {
    if (y == 0) return value(0);
    if (y == 2) return value(a - 1);
    return (value(1) - value(2)) / 2;
  };
  for (int64_t o = 0; o < s.co; ++o)
    for (int64_t c = 0; c < s.ci; ++c)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
          oihw[static_cast<size_t>((o * s.ci + c) * 9 + y * 3 + x)] = static_cast<float>(pick(y, [&](int i) {
            return pick(x, [&](int j) {
              return static_cast<double>(transformed[TransformedIndex(s, a * a, o, i * a + j, c)]);
            });
          }));
  return oihw;
}

std::vector<float> WinogradConvolution(const ConvShape& s, int m, const float* nchw, const float* oihw) {
  const WinogradMatrices& f = WinogradF(m);
  const int a = f.alpha, a2 = a * a;
  const std::vector<float> u = TransformWeights(s, m, oihw);
  std::vector<float> out(s.output_elements());
  std::vector<float> v(static_cast<size_t>(s.ci * a2)), d(static_cast<size_t>(a2)), t(static_cast<size_t>(a2));
  const auto bt = [&](int i, int j) { return static_cast<float>(f.bt[i * a + j]); };
  const auto at = [&](int i, int j) { return static_cast<float>(f.at[i * a + j]); };
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t ty = 0; ty < (s.oh + m - 1) / m; ++ty)
      for (int64_t tx = 0; tx < (s.ow + m - 1) / m; ++tx) {
        for (int64_t c = 0; c < s.ci; ++c) {  // V = B^T d B
          for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
              const int64_t iy = ty * m - s.pad + i, ix = tx * m - s.pad + j;
              d[static_cast<size_t>(i * a + j)] =
                  iy >= 0 && iy < s.h && ix >= 0 && ix < s.w ? nchw[((n * s.ci + c) * s.h + iy) * s.w + ix] : 0.0f;
            }
          for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
              float sum = 0;
              for (int k = 0; k < a; ++k) sum += bt(i, k) * d[static_cast<size_t>(k * a + j)];
              t[static_cast<size_t>(i * a + j)] = sum;
            }
          for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
              float sum = 0;
              for (int k = 0; k < a; ++k) sum += t[static_cast<size_t>(i * a + k)] * bt(j, k);
              v[static_cast<size_t>(c * a2 + i * a + j)] = sum;
            }
        }
        for (int64_t o = 0; o < s.co; ++o) {
          std::vector<float> mk(static_cast<size_t>(a2), 0.0f);  // the products summed over channels
          for (int k = 0; k < a2; ++k)
            for (int64_t c = 0; c < s.ci; ++c)
              mk[static_cast<size_t>(k)] +=
                  v[static_cast<size_t>(c * a2 + k)] * u[static_cast<size_t>(TransformedIndex(s, a2, o, k, c))];
          for (int r = 0; r < m; ++r)  // Y = A'^T M A'
            for (int col = 0; col < m; ++col) {
              float y = 0;
              for (int i = 0; i < a; ++i) {
                float row = 0;
                for (int j = 0; j < a; ++j) row += mk[static_cast<size_t>(i * a + j)] * at(col, j);
                y += at(r, i) * row;
              }
              const int64_t oy = ty * m + r, ox = tx * m + col;
              if (oy < s.oh && ox < s.ow) out[static_cast<size_t>(((n * s.co + o) * s.oh + oy) * s.ow + ox)] = y;
            }
        }
      }
  return out;
}

}  // namespace tt
