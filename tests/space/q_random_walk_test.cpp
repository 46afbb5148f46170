#include "space/q_random_walk.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

namespace tt {
namespace {

// OpEvo appendix A: S = (1 - q) (I - Q)^-1 p0 with Q[v][u] = q / |S(u)| for v in S(u).
Eigen::VectorXd ClosedForm(const Knob& knob, uint32_t start, double q) {
  const auto n = static_cast<Eigen::Index>(knob.size());
  Eigen::MatrixXd transition = Eigen::MatrixXd::Zero(n, n);
  for (uint32_t u = 0; u < knob.size(); ++u)
    for (uint32_t v : knob.neighbours(u)) transition(v, u) = q / knob.neighbours(u).size();
  Eigen::VectorXd p0 = Eigen::VectorXd::Zero(n);
  p0(start) = 1;
  return (1 - q) * (Eigen::MatrixXd::Identity(n, n) - transition).partialPivLu().solve(p0);
}

void ExpectWalkMatchesClosedForm(const Knob& knob, const KnobValue& start_value, double q) {
  constexpr int kSamples = 200000;
  const uint32_t start = *knob.Find(start_value);
  const Eigen::VectorXd expected = ClosedForm(knob, start, q);
  EXPECT_NEAR(expected.sum(), 1.0, 1e-12);
  EXPECT_GE(expected.minCoeff(), 0.0);

  Eigen::VectorXd counts = Eigen::VectorXd::Zero(expected.size());
  Rng rng(1234);
  for (int i = 0; i < kSamples; ++i) counts(QRandomWalk(knob, start, q, rng)) += 1;
  for (Eigen::Index v = 0; v < expected.size(); ++v) {
    const double p = expected(v);
    const double standard_error = std::sqrt(p * (1 - p) / kSamples);
    EXPECT_NEAR(counts(v) / kSamples, p, 5 * standard_error + 1e-3) << knob.name() << " q=" << q << " value #" << v;
  }
}

TEST(QRandomWalk, SplitEightIntoThreeFromEightOneOne) {
  const Knob knob = Knob::Split("tile", 8, 3);
  ExpectWalkMatchesClosedForm(knob, {8, 1, 1}, 0.3);
  ExpectWalkMatchesClosedForm(knob, {8, 1, 1}, 0.7);
}

TEST(QRandomWalk, PermutationDiscreteAndCategorical) {
  ExpectWalkMatchesClosedForm(Knob::Permutation("order", 3), {0, 1, 2}, 0.5);
  ExpectWalkMatchesClosedForm(Knob::Discrete("unroll", {1, 2, 4, 8, 16}), {1}, 0.6);
  ExpectWalkMatchesClosedForm(Knob::Categorical("axis", {0, 1, 2, 3}), {2}, 0.4);
}

// The direction of q (NNI's documentation has it backwards): larger q walks further.
TEST(QRandomWalk, LargerQMovesAwayMoreOften) {
  const Knob knob = Knob::Split("tile", 8, 3);
  const uint32_t start = *knob.Find({8, 1, 1});
  EXPECT_GT(ClosedForm(knob, start, 0.1)(start), 0.9);  // 1 - q stop at once, some come back
  EXPECT_LT(ClosedForm(knob, start, 0.9)(start), 0.3);
  Rng rng(5);
  int stayed_low = 0, stayed_high = 0;
  for (int i = 0; i < 20000; ++i) {
    stayed_low += QRandomWalk(knob, start, 0.1, rng) == start;
    stayed_high += QRandomWalk(knob, start, 0.9, rng) == start;
  }
  EXPECT_GT(stayed_low, 17500);
  EXPECT_LT(stayed_high, 6000);
}

TEST(QRandomWalk, SingleValueKnobStays) {
  const Knob knob = Knob::Split("tile", 1, 2);
  Rng rng(3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(QRandomWalk(knob, 0, 0.9, rng), 0u);
}

}  // namespace
}  // namespace tt
