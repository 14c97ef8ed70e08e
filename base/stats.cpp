#include "base/stats.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <numbers>
#include <numeric>

#include "base/error.hpp"

namespace mlbench {

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw Error("percentile of an empty sample set");
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 0.5);
}

double mad(std::span<const double> values) {
  double m = median(values);
  std::vector<double> dev(values.size());
  std::transform(values.begin(), values.end(), dev.begin(), [m](double x) { return std::fabs(x - m); });
  return median(dev);
}

Stats compute_stats(std::span<const double> values) {
  Stats s;
  if (values.empty()) return s;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.p10 = percentile_sorted(v, 0.10);
  s.median = percentile_sorted(v, 0.50);
  s.p90 = percentile_sorted(v, 0.90);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1 && s.mean != 0) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(ss / static_cast<double>(s.n - 1)) / std::fabs(s.mean);
  }
  s.mad = mad(v);
  return s;
}

double relative_sigma(const ConfidenceInterval& ci, double value) {
  if (value == 0 || !std::isfinite(value) || !std::isfinite(ci.lo) || !std::isfinite(ci.hi)) return 0;
  return std::fabs(ci.hi - ci.lo) / (2 * kConfidenceZ * std::fabs(value));
}

RankInterval quantile_rank_interval(double n, double q) {
  n = std::floor(n);
  if (n <= 0) return {};
  q = std::clamp(q, 0.0, 1.0);
  constexpr double kTail = (1 - 0.95) / 2;
  if (q == 0) return {0, 1};      // the count below is always 0: nothing bounds the minimum below
  if (q == 1) return {n, n + 1};  // always n: nothing bounds the maximum above
  // Walk the Binomial(n, q) distribution of the count below the quantile upward from 12 standard deviations
  // under its mean (the mass below is < 1e-30), each probability from the last: P(k + 1) = P(k) · (n − k) /
  // (k + 1) · q / (1 − q); the first, by the log-gamma function.
  const double sd = std::sqrt(n * q * (1 - q));
  double k = std::max(0.0, std::floor(n * q - 12 * sd - 1));
  double p = std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(q) +
                      (n - k) * std::log1p(-q));
  double below = 0;  // P(count ≤ k)
  RankInterval r{-1, n + 1};
  for (; k <= n; ++k) {
    below += p;
    // X(k + 1) ≤ quantile when count ≥ k + 1: lo is the largest rank with P(count < lo) ≤ 2.5 %.
    if (r.lo < 0 && below > kTail) r.lo = k;
    // X(k + 1) > quantile when count ≤ k: hi is the smallest rank with P(count < hi) ≥ 97.5 %.
    if (below >= 1 - kTail) {
      r.hi = k + 1;
      break;
    }
    p *= (n - k) / (k + 1) * q / (1 - q);
  }
  r.lo = std::max(r.lo, 0.0);
  return r;
}

double quantile_samples_needed(double q) {
  if (!(q > 0 && q < 1)) return 0;
  constexpr double kTail = (1 - 0.95) / 2;
  return std::ceil(std::log(kTail) / std::log(std::max(q, 1 - q)));
}

double median_standard_error(const Stats& s) {
  if (s.n < 2) return 0;
  return kMedianEfficiency * kMadToSigma * s.mad / std::sqrt(static_cast<double>(s.n));
}

double mean_standard_error(const Stats& s) {
  if (s.n < 2) return 0;
  return s.cv * std::fabs(s.mean) / std::sqrt(static_cast<double>(s.n));
}

double maximum_standard_deviation(std::span<const double> values) {
  if (values.size() < 2) return 0;
  std::vector<double> v(values.begin(), values.end());
  std::partial_sort(v.begin(), v.begin() + 2, v.end(), std::greater<>());
  constexpr double kGumbelSigma = 1.282550;  // π / sqrt(6)
  return kGumbelSigma * (v[0] - v[1]);
}

double log_standard_deviation(std::span<const double> values) {
  if (values.size() < 2) return 0;
  const auto n = static_cast<double>(values.size());
  double mean = 0, squares = 0;
  for (double x : values) mean += std::log(x) / n;
  for (double x : values) squares += (std::log(x) - mean) * (std::log(x) - mean);
  return std::sqrt(squares / (n - 1));
}

double student_t95(std::size_t dof) {
  // The table to 30 degrees of freedom; beyond, the Cornish-Fisher expansion in 1/dof (within 0.05 % there).
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  dof = std::max<std::size_t>(dof, 1);
  if (dof <= std::size(kTable)) return kTable[dof - 1];
  const double z = kConfidenceZ, nu = static_cast<double>(dof);
  return z + (z * z * z + z) / (4 * nu) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * nu * nu);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw Error("normal_quantile: p must be in (0, 1)");
  // Acklam's coefficients: a rational function in the central region, one in sqrt(−2 ln p) in the tails.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double low = 0.02425;
  double x = 0;
  if (p < low || p > 1 - low) {
    const double q = std::sqrt(-2 * std::log(p < low ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - low) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Halley step against Φ(x) = erfc(−x/√2)/2.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double family_z95(std::size_t metrics) {
  if (metrics <= 1) return kConfidenceZ;
  const double alpha = 1 - std::pow(0.95, 1.0 / static_cast<double>(metrics));
  return normal_quantile(1 - alpha / 2);
}

ConfidenceInterval symmetric_ci(double value, double sigma) {
  return {value - kConfidenceZ * sigma, value + kConfidenceZ * sigma};
}

ConfidenceInterval widen(const ConfidenceInterval& ci, double value, double sigma) {
  const double add = kConfidenceZ * sigma;
  return {value - std::hypot(value - ci.lo, add), value + std::hypot(ci.hi - value, add)};
}

}  // namespace mlbench
