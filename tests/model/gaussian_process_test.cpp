#include "model/gaussian_process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

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

// y = x0 measured on the lower half of [0, 1], the second feature irrelevant.
void Ramp(Eigen::MatrixXd& x, Eigen::VectorXd& y) {
  const int n = 8;
  x.resize(n, 2);
  y.resize(n);
  for (int i = 0; i < n; ++i) {
    x(i, 0) = 0.1 + 0.05 * i;
    x(i, 1) = std::fmod(0.37 * i, 1.0);
    y[i] = 4 * (x(i, 0) - 0.25);
  }
}

GpHyper LinearStart() {
  GpHyper h{Eigen::VectorXd::Constant(2, std::log(0.5)), 0, std::log(1e-4)};
  h.log_linear = Eigen::Vector2d(0, std::log(2.0));  // variances 1 and 2
  return h;
}

TEST(GaussianProcess, ALinearKernelCarriesATrendToTheEndOfTheRange) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Ramp(x, y);
  GpHyper flat = LinearStart();
  flat.log_linear.resize(0);
  GaussianProcess with, without;
  with.FitHyper(x, y, LinearStart(), 40);
  without.FitHyper(x, y, flat, 40);
  Eigen::MatrixXd end(1, 2);
  end << 1.0, 0.5;  // the trend says 3
  Eigen::VectorXd mean_with, mean_without, var;
  with.Predict(end, mean_with, var);
  without.Predict(end, mean_without, var);
  EXPECT_NEAR(mean_with[0], 3.0, 0.3);
  EXPECT_LT(mean_without[0], 2.5);  // a Matern kernel alone bends back towards the mean
  EXPECT_GT(with.LogMarginalLikelihood(), without.LogMarginalLikelihood());
  // Each feature's trend is its own: the irrelevant one's fades.
  EXPECT_GT(with.hyper().log_linear[0], with.hyper().log_linear[1] + 1);
  GpHyper wrong = LinearStart();
  wrong.log_linear = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(with.Fit(x, y, wrong), std::invalid_argument);
}

TEST(GaussianProcess, ALinearKernelFadesWhereTheDataHaveNoTrend) {
  Eigen::MatrixXd x(12, 1);
  Eigen::VectorXd y(12);
  for (int i = 0; i < 12; ++i) x(i, 0) = (i + 0.5) / 12, y[i] = std::cos(2 * 3.14159265358979 * x(i, 0));
  GpHyper start{Eigen::VectorXd::Constant(1, std::log(0.3)), 0, std::log(1e-4)};
  start.log_linear = Eigen::VectorXd::Zero(1);
  GaussianProcess gp;
  EXPECT_LT(gp.FitHyper(x, y, start, 40).log_linear[0], -1);
}

TEST(GaussianProcess, TheLinearKernelIsPartOfEveryCovariance) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Ramp(x, y);
  GaussianProcess gp;
  gp.Fit(Eigen::MatrixXd(0, 2), Eigen::VectorXd(0), LinearStart());
  Eigen::MatrixXd at(2, 2);
  at << 1.0, 0.0, 0.2, 0.9;
  Eigen::VectorXd mean, var;
  gp.Predict(at, mean, var);
  EXPECT_NEAR(var[0], 1.0 + 0.25 + 2 * 0.25, 1e-9);  // signal plus the variances times (x - 0.5)^2
  gp.Fit(x, y, LinearStart());
  const Eigen::MatrixXd k = gp.KernelMatrix(at, at);
  const Eigen::VectorXd a = at.row(0).transpose(), b = at.row(1).transpose();
  EXPECT_NEAR(k(0, 1), gp.Kernel(a.data(), b.data()), 1e-12);
  GpHyper flat = LinearStart();
  flat.log_linear.resize(0);
  GaussianProcess matern;
  matern.Fit(x, y, flat);
  EXPECT_NEAR(k(0, 1) - matern.KernelMatrix(at, at)(0, 1), 0.5 * -0.3 + 2 * -0.5 * 0.4, 1e-12);
}

}  // namespace
}  // namespace tt
