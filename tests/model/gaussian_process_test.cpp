#include "model/gaussian_process.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tt {
namespace {

// y = sin(6x) on [0, 1], with an irrelevant second feature.
void Sample(int n, Eigen::MatrixXd& x, Eigen::VectorXd& y) {
  x.resize(n, 2);
  y.resize(n);
  for (int i = 0; i < n; ++i) {
    x(i, 0) = (i + 0.5) / n;
    x(i, 1) = std::fmod(0.37 * i, 1.0);
    y[i] = std::sin(6 * x(i, 0));
  }
}

TEST(GaussianProcess, InterpolatesAndIsUnsureFarFromItsData) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(12, x, y);
  GaussianProcess gp;
  GpHyper start{Eigen::VectorXd::Constant(2, std::log(0.5)), 0, std::log(1e-4)};
  gp.FitHyper(x, y, start, 40);
  Eigen::MatrixXd at(2, 2);
  at << 0.5, 0.3,  // inside the data
      0.5, 0.9;    // another value of the irrelevant feature
  Eigen::VectorXd mean, var;
  gp.Predict(at, mean, var);
  EXPECT_NEAR(mean[0], std::sin(3.0), 0.1);
  EXPECT_NEAR(mean[1], std::sin(3.0), 0.15);
  // The irrelevant feature gets the longer length scale.
  EXPECT_GT(gp.hyper().log_length[1], gp.hyper().log_length[0]);

  Eigen::MatrixXd far(1, 2);
  far << 3.0, 0.5;
  gp.Predict(far, mean, var);
  EXPECT_GT(var[0], 0.5 * std::exp(gp.hyper().log_signal));
}

TEST(GaussianProcess, FittingHyperparametersRaisesTheLikelihood) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(20, x, y);
  const GpHyper start{Eigen::VectorXd::Constant(2, std::log(3.0)), 0, std::log(0.05)};
  GaussianProcess fixed, fitted;
  fixed.Fit(x, y, start);
  fitted.FitHyper(x, y, start, 30);
  EXPECT_GT(fitted.LogMarginalLikelihood(), fixed.LogMarginalLikelihood());
}

TEST(GaussianProcess, WithoutDataPredictsThePrior) {
  GaussianProcess gp;
  gp.Fit(Eigen::MatrixXd(0, 2), Eigen::VectorXd(0), {Eigen::VectorXd::Zero(2), std::log(2.0), std::log(1e-3)});
  Eigen::MatrixXd at = Eigen::MatrixXd::Constant(3, 2, 0.5);
  Eigen::VectorXd mean, var;
  Eigen::MatrixXd cross;
  gp.Predict(at, mean, var, &cross);
  EXPECT_EQ(mean, Eigen::VectorXd::Zero(3));
  EXPECT_NEAR(var[0], 2.0, 1e-9);
  EXPECT_EQ(cross.rows(), 0);
  const Eigen::VectorXd a = at.row(0).transpose(), b = at.row(1).transpose();
  EXPECT_NEAR(gp.Kernel(a.data(), b.data()), 2.0, 1e-9);
}

}  // namespace
}  // namespace tt
