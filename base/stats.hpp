// Order statistics and spread of a sample set: pure functions, unit-tested.
//
// Percentiles use linear interpolation between closest ranks (the "R-7" definition used by numpy's default),
// so p50 of an even-sized set is the mean of the two middle values. CV is the sample standard deviation
// (n-1) over the mean; MAD is the median absolute deviation from the median (unscaled).
//
// A tail percentile of one run (p99.99 of 50,000 latencies is the ~5th largest) has no samples of its own to
// spread over; its uncertainty follows from the sample count: the number of samples below the true q-quantile
// is Binomial(n, q), so the order statistics at ranks n·q ± z·sqrt(n·q·(1 − q)) bound it with the confidence
// of z (the normal approximation of the distribution-free quantile interval; Conover, Practical Nonparametric
// Statistics, 3rd ed., §3.2). ConfidenceInterval carries the values at those ranks; relative_sigma turns it
// into the CV-like spread that compare's noise band combines with other metrics' CVs.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace mlbench {

struct Stats {
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0, mean = 0, cv = 0, mad = 0;
  std::size_t n = 0;
};

// Percentile q in [0, 1] of already sorted values; throws on an empty set.
double percentile_sorted(std::span<const double> sorted, double q);
double median(std::span<const double> values);
double mad(std::span<const double> values);
// Statistics of the values; all fields zero (n = 0) for an empty set.
Stats compute_stats(std::span<const double> values);

// 95 % two-sided: the z of every ConfidenceInterval in a report.
inline constexpr double kConfidenceZ = 1.959964;

// A value's 95 % confidence interval, in the value's unit.
struct ConfidenceInterval {
  double lo = 0, hi = 0;
};
// (hi − lo) / (2 · kConfidenceZ · |value|): the relative standard deviation the interval implies; 0 when the
// value is 0 or not finite.
double relative_sigma(const ConfidenceInterval& ci, double value);

// The ranks (1-based, fractional, clamped to [1, n]) of the order statistics that bound the q-quantile of n
// independent samples with 95 % confidence; {0, 0} when n is 0.
struct RankInterval {
  double lo = 0, hi = 0;
};
RankInterval quantile_rank_interval(double n, double q);

}  // namespace mlbench
