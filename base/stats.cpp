#include "base/stats.hpp"

#include <algorithm>
#include <cmath>
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
  if (n <= 0) return {};
  q = std::clamp(q, 0.0, 1.0);
  const double centre = n * q;
  const double half = kConfidenceZ * std::sqrt(n * q * (1 - q));
  return {std::clamp(centre - half, 1.0, n), std::clamp(centre + half, 1.0, n)};
}

}  // namespace mlbench
