#pragma once
// Winograd F(m x m, 3 x 3) for the channel-blocked sketches (conv2d_winograd{2,4}_nchwc): the
// transform matrices and the weight transform, which the measurer (through the template's
// DeriveInput), the runtime's PackWeights and the kernel-pack check all take from here.
//
// Lavin and Gray's matrices, with G = D G' split into integer rows G' and a diagonal D that is
// folded into the output transform (A'^T = A^T D): U' = G' g G'^T is then exact for integer
// weights, as B^T d B is for integer inputs, so the products summed in the transformed domain
// are exact on the measurer's test data and only the output transform rounds.
#include <cstdint>
#include <vector>

#include "ops/conv_shape.h"

namespace tt {

struct WinogradMatrices {
  int m = 2;               // output tile edge
  int alpha = 4;           // input tile edge, m + 2
  std::vector<double> bt;  // alpha x alpha, B^T (integers)
  std::vector<double> g;   // alpha x 3, G' (integers)
  std::vector<double> at;  // m x alpha, A^T D
};

// m = 2 or 4; throws std::invalid_argument otherwise.
const WinogradMatrices& WinogradF(int m);

// Transformed weights of a 3x3 conv2d: [ceil(CO/16)][alpha^2][CI][16] (16 output channels
// innermost, component k = row * alpha + column, the lanes past CO zero).
int64_t WinogradWeightElements(const ConvShape& s, int m);
std::vector<float> TransformWeights(const ConvShape& s, int m, const float* oihw);
// The OIHW weights back (exact: g = H U' H^T with H the rows 0, (1 - 2) / 2 and alpha - 1 of a
// left inverse of G'); the padding lanes are dropped.
std::vector<float> UntransformWeights(const ConvShape& s, int m, const float* transformed);

// The convolution computed as the kernel computes it (float, the same transforms and the same
// summation order over input channels), on plain NCHW / OIHW data: what the numerics test and
// bench compare against a double-precision direct convolution, without a device.
std::vector<float> WinogradConvolution(const ConvShape& s, int m, const float* nchw, const float* oihw);

}  // namespace tt
