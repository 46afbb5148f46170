#include "model/gaussian_process.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace tt {
namespace {

constexpr double kSqrt5 = 2.23606797749979;
constexpr double kJitter = 1e-8;
constexpr double kLinearCentre = 0.5;
// A weak log-normal prior on each length scale (features span [0, 1]): keeps a length that
// the data do not inform from running off to a bound.
constexpr double kPriorLogLength = -0.7;  // 0.5
constexpr double kPriorLogLengthVar = 2.25;

void Clamp(GpHyper& h, const GpBounds& b) {
  for (Eigen::Index j = 0; j < h.log_length.size(); ++j)
    h.log_length[j] = std::clamp(h.log_length[j], b.min_log_length, b.max_log_length);
  h.log_signal = std::clamp(h.log_signal, b.min_log_signal, b.max_log_signal);
  h.log_noise = std::clamp(h.log_noise, b.min_log_noise, b.max_log_noise);
  for (Eigen::Index j = 0; j < h.log_linear.size(); ++j)
    h.log_linear[j] = std::clamp(h.log_linear[j], b.min_log_linear, b.max_log_linear);
}

// Features centred on the middle of [0, 1], as the linear kernel sees them.
Eigen::MatrixXd Centred(const Eigen::MatrixXd& x) { return x.array() - kLinearCentre; }

// Throws std::invalid_argument unless a linear kernel, if any, has a variance per feature.
void CheckLinear(const GpHyper& h, Eigen::Index d) {
  if (h.log_linear.size() != 0 && h.log_linear.size() != d)
    throw std::invalid_argument("GpHyper: the linear kernel needs one variance per feature");
}

}  // namespace

double Matern52(double r) { return (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-kSqrt5 * r); }

GpHyper DefaultHyper(size_t dims) {
  GpHyper h;
  h.log_length = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(dims), std::log(0.5));
  h.log_signal = 0;
  h.log_noise = std::log(1e-3);
  return h;
}

double ExpectedImprovement(double mean, double sd, double best) {
  if (sd <= 1e-12) return std::max(mean - best, 0.0);
  const double z = (mean - best) / sd;
  const double pdf = 0.3989422804014327 * std::exp(-0.5 * z * z);  // the standard normal's
  const double cdf = 0.5 * std::erfc(-z * 0.7071067811865476);
  return (mean - best) * cdf + sd * pdf;
}

double GaussianProcess::Kernel(const double* a, const double* b) const {
  double r2 = 0;
  for (Eigen::Index j = 0; j < inv_length_sq_.size(); ++j) {
    const double d = a[j] - b[j];
    r2 += d * d * inv_length_sq_[j];
  }
  double k = std::exp(hyper_.log_signal) * Matern52(std::sqrt(r2));
  for (Eigen::Index j = 0; j < linear_var_.size(); ++j)
    k += linear_var_[j] * (a[j] - kLinearCentre) * (b[j] - kLinearCentre);
  return k;
}

Eigen::MatrixXd GaussianProcess::KernelMatrix(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const {
  // Scaled copies, so that the squared distances come from one matrix product.
  const Eigen::VectorXd scale = inv_length_sq_.cwiseSqrt();
  const Eigen::MatrixXd as = a * scale.asDiagonal();
  const Eigen::MatrixXd bs = b * scale.asDiagonal();
  const Eigen::VectorXd an = as.rowwise().squaredNorm();
  const Eigen::VectorXd bn = bs.rowwise().squaredNorm();
  Eigen::MatrixXd k = -2.0 * (as * bs.transpose());
  k.colwise() += an;
  k.rowwise() += bn.transpose();
  const double signal = std::exp(hyper_.log_signal);
  k = k.unaryExpr([signal](double r2) { return signal * Matern52(std::sqrt(std::max(r2, 0.0))); });
  if (linear_var_.size() > 0) k += Centred(a) * linear_var_.asDiagonal() * Centred(b).transpose();
  return k;
}

void GaussianProcess::Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, const GpHyper& hyper) {
  CheckLinear(hyper, x.cols());
  x_ = x;
  hyper_ = hyper;
  inv_length_sq_ = (-2.0 * hyper.log_length.array()).exp().matrix();
  linear_var_ = hyper.log_linear.array().exp().matrix();
  const Eigen::Index n = x.rows();
  Eigen::MatrixXd k = KernelMatrix(x, x);
  k.diagonal().array() += std::exp(hyper.log_noise) + kJitter;
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  chol_l_ = llt.matrixL();
  alpha_ = llt.solve(y);
  lml_ = -0.5 * y.dot(alpha_) - chol_l_.diagonal().array().log().sum() -
         0.5 * static_cast<double>(n) * std::log(2 * std::numbers::pi);
}

GpHyper GaussianProcess::FitHyper(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, GpHyper start, int steps,
                                  const GpBounds& bounds) {
  const Eigen::Index n = x.rows(), d = x.cols();
  CheckLinear(start, d);
  Clamp(start, bounds);
  if (n < 2 || steps <= 0) {
    Fit(x, y, start);
    return start;
  }
  // Squared differences per feature, reused by every step.
  std::vector<Eigen::MatrixXd> diff2(static_cast<size_t>(d), Eigen::MatrixXd(n, n));
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index a = 0; a < n; ++a)
      for (Eigen::Index b = 0; b < n; ++b) {
        const double t = x(a, j) - x(b, j);
        diff2[static_cast<size_t>(j)](a, b) = t * t;
      }
  const bool linear = start.log_linear.size() > 0;
  const Eigen::Index p = d + 2 + (linear ? d : 0);  // log lengths, log signal, log noise, log linear
  const Eigen::MatrixXd c = linear ? Centred(x) : Eigen::MatrixXd();
  Eigen::VectorXd step = Eigen::VectorXd::Constant(p, 0.2);
  Eigen::VectorXd last_grad = Eigen::VectorXd::Zero(p);
  GpHyper h = start, best = start;
  double best_lml = -std::numeric_limits<double>::infinity();
  for (int it = 0; it < steps; ++it) {
    const Eigen::VectorXd inv_l2 = (-2.0 * h.log_length.array()).exp().matrix();
    Eigen::MatrixXd r2 = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index j = 0; j < d; ++j) r2 += inv_l2[j] * diff2[static_cast<size_t>(j)];
    const double signal = std::exp(h.log_signal), noise = std::exp(h.log_noise);
    const Eigen::MatrixXd r = r2.cwiseSqrt();
    const Eigen::MatrixXd e = (-kSqrt5 * r).array().exp().matrix();
    Eigen::MatrixXd k = signal * ((1 + kSqrt5 * r.array() + 5.0 / 3.0 * r2.array()) * e.array()).matrix();
    const Eigen::MatrixXd k_signal = k;                             // dK / dlog_signal
    const Eigen::VectorXd v = h.log_linear.array().exp().matrix();  // empty without a linear kernel
    if (linear) k += c * v.asDiagonal() * c.transpose();
    k.diagonal().array() += noise + kJitter;
    Eigen::LLT<Eigen::MatrixXd> llt(k);
    if (llt.info() != Eigen::Success) break;
    const Eigen::VectorXd alpha = llt.solve(y);
    const Eigen::MatrixXd l = llt.matrixL();
    double lml = -0.5 * y.dot(alpha) - l.diagonal().array().log().sum();
    for (Eigen::Index j = 0; j < d; ++j)
      lml -= 0.5 * std::pow(h.log_length[j] - kPriorLogLength, 2) / kPriorLogLengthVar;
    if (lml > best_lml) best_lml = lml, best = h;
    const Eigen::MatrixXd kinv = llt.solve(Eigen::MatrixXd::Identity(n, n));
    const Eigen::MatrixXd w = alpha * alpha.transpose() - kinv;
    // dK/dlog_length_j = signal * 5/3 (1 + sqrt5 r) exp(-sqrt5 r) * diff_j^2 / length_j^2.
    const Eigen::MatrixXd g = signal * 5.0 / 3.0 * ((1 + kSqrt5 * r.array()) * e.array()).matrix();
    const Eigen::MatrixXd wg = w.cwiseProduct(g);
    Eigen::VectorXd grad(p);
    for (Eigen::Index j = 0; j < d; ++j)
      grad[j] = 0.5 * inv_l2[j] * wg.cwiseProduct(diff2[static_cast<size_t>(j)]).sum() -
                (h.log_length[j] - kPriorLogLength) / kPriorLogLengthVar;
    grad[d] = 0.5 * w.cwiseProduct(k_signal).sum();
    grad[d + 1] = 0.5 * noise * w.trace();
    if (linear) {
      const Eigen::MatrixXd wc = w * c;
      for (Eigen::Index j = 0; j < d; ++j) grad[d + 2 + j] = 0.5 * v[j] * c.col(j).dot(wc.col(j));
    }
    // iRprop-: a step per parameter, grown while its gradient keeps its sign.
    for (Eigen::Index q = 0; q < p; ++q) {
      if (grad[q] * last_grad[q] < 0) {
        step[q] = std::max(step[q] * 0.5, 1e-4);
        grad[q] = 0;
      } else if (grad[q] * last_grad[q] > 0) {
        step[q] = std::min(step[q] * 1.2, 1.0);
      }
      const double move = grad[q] > 0 ? step[q] : grad[q] < 0 ? -step[q] : 0;
      if (q < d)
        h.log_length[q] += move;
      else if (q == d)
        h.log_signal += move;
      else if (q == d + 1)
        h.log_noise += move;
      else
        h.log_linear[q - d - 2] += move;
    }
    last_grad = grad;
    Clamp(h, bounds);
  }
  Fit(x, y, best);
  return best;
}

void GaussianProcess::Predict(const Eigen::MatrixXd& xs, Eigen::VectorXd& mean, Eigen::VectorXd& variance,
                              Eigen::MatrixXd* cross) const {
  Eigen::VectorXd prior = Eigen::VectorXd::Constant(xs.rows(), std::exp(hyper_.log_signal));
  if (linear_var_.size() > 0) prior += Centred(xs).array().square().matrix() * linear_var_;
  if (!fitted()) {
    mean = Eigen::VectorXd::Zero(xs.rows());
    variance = prior;
    if (cross) cross->resize(0, xs.rows());
    return;
  }
  Eigen::MatrixXd ks = KernelMatrix(x_, xs);
  mean = ks.transpose() * alpha_;
  chol_l_.triangularView<Eigen::Lower>().solveInPlace(ks);
  variance = (prior - ks.colwise().squaredNorm().transpose()).cwiseMax(1e-12);
  if (cross) *cross = std::move(ks);
}

}  // namespace tt
