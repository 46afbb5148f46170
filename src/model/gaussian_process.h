#pragma once
// Gaussian-process regression with a Matern-5/2 kernel and one length scale per feature
// (automatic relevance determination), optionally beside a linear kernel with one variance
// per feature, for Bayesian optimization over config features in [0, 1]. Hyperparameters are
// fitted by maximizing the log marginal likelihood with Rprop, which needs no step size and
// stays stable with a handful of points.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <vector>

namespace tt {

struct GpHyper {
  Eigen::VectorXd log_length;  // one per feature
  double log_signal = 0;       // log of the signal variance
  double log_noise = -6.9;     // log of the noise variance (targets standardized)
  // A linear kernel beside the Matern one, sum over features j of exp(log_linear[j])
  // (a_j - 0.5) (b_j - 0.5): trends that carry past the points measured, to the ends of a
  // knob's range, each feature's fitted on its own. Empty: none; else one per feature.
  Eigen::VectorXd log_linear = {};
};

// Bounds of the hyperparameters, in log space.
struct GpBounds {
  double min_log_length = -3.0;  // 0.05
  double max_log_length = 2.3;   // 10
  double min_log_signal = -2.3;
  double max_log_signal = 2.3;
  double min_log_noise = -11.5;  // 1e-5
  double max_log_noise = -2.3;   // 0.1
  double min_log_linear = -9.2;  // 1e-4
  double max_log_linear = 1.0;
};

class GaussianProcess {
 public:
  // Rows of `x` are points (features in [0, 1]); `y` their targets (best standardized).
  // Fits the posterior for the given hyperparameters.
  void Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const GpHyper& hyper);
  // Rprop steps on the log marginal likelihood from `start`, then Fit with the result.
  // Returns the hyperparameters found.
  GpHyper FitHyper(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, GpHyper start, int steps,
                   const GpBounds& bounds = {});

  bool fitted() const { return x_.rows() > 0; }
  const GpHyper& hyper() const { return hyper_; }
  size_t rows() const { return static_cast<size_t>(x_.rows()); }

  // Posterior mean and variance (without noise) at the rows of `xs`. When `cross` is given it
  // receives L^-1 K(X, xs) (n x m), from which posterior covariances between candidates follow.
  void Predict(const Eigen::MatrixXd& xs, Eigen::VectorXd& mean, Eigen::VectorXd& variance,
               Eigen::MatrixXd* cross = nullptr) const;
  // The kernel between two points of this GP's feature space.
  double Kernel(const double* a, const double* b) const;
  // K(a_i, b_j) for rows of a and b.
  Eigen::MatrixXd KernelMatrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const;

  double LogMarginalLikelihood() const { return lml_; }

 private:
  Eigen::MatrixXd x_;
  Eigen::VectorXd alpha_;
  Eigen::MatrixXd chol_l_;  // lower Cholesky factor of K + noise I
  Eigen::VectorXd inv_length_sq_;
  Eigen::VectorXd linear_var_;  // exp(log_linear), per feature; empty without a linear kernel
  GpHyper hyper_;
  double lml_ = 0;
};

// Matern 5/2 of a scaled distance r: (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r).
double Matern52(double r);

// Where a fit starts: length scales of 0.5 on every one of `dims` features, unit signal,
// noise 1e-3.
GpHyper DefaultHyper(size_t dims);

// Expected improvement over `best` of a normal prediction (mean, sd), maximizing.
double ExpectedImprovement(double mean, double sd, double best);

}  // namespace tt
