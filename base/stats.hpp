// Order statistics and spread of a sample set: pure functions, unit-tested.
//
// Percentiles use linear interpolation between closest ranks (the "R-7" definition used by numpy's default),
// so p50 of an even-sized set is the mean of the two middle values. CV is the sample standard deviation
// (n-1) over the mean; MAD is the median absolute deviation from the median (unscaled).
//
// A tail percentile of one run (p99.99 of 50,000 latencies is the ~5th largest) has no samples of its own to
// spread over; its uncertainty follows from the sample count: the number of samples below the true q-quantile
// is Binomial(n, q), so the order statistics at that count's exact 2.5 % and 97.5 % points bound it with 95 %
// confidence (the distribution-free quantile interval; Conover, Practical Nonparametric Statistics, 3rd ed.,
// §3.2). A tail with fewer than a handful of samples beyond it has no such bound on that side (p99.99 of
// 4,851 samples: the slowest one is beyond the quantile only 38 % of the time): its interval is open, and a
// value with an open interval cannot be told from another. ConfidenceInterval carries the values at those
// ranks (±infinity where open); relative_sigma turns a bounded one into the relative standard deviation that
// compare's noise band combines with other metrics' spreads.
//
// The uncertainty of a run's value is that of the STATISTIC, not the spread of its samples (Type A
// evaluation, GUM 4.2: the experimental standard deviation of the mean is s/sqrt(n), not s):
//  - a median of n samples (rate_metric: work / median seconds) has the standard error sqrt(π/2)·σ/sqrt(n)
//    (the median's asymptotic variance π·σ²/(2n) for normal data), with σ estimated as 1.4826·MAD, which is
//    consistent with σ for normal data and robust: one stalled interval moves a median by one rank, not by
//    its size, and must not inflate its σ by its size either;
//  - a mean of n samples (storage.io's IOPS: all I/Os over the window) has s/sqrt(n) with the sample standard
//    deviation s, since a stalled interval does move a mean by its size;
//  - a maximum is not an average and does not shrink with n: for draws with an exponential-type tail of scale
//    b the largest of n varies as a Gumbel variable, σ = π/sqrt(6)·b, and the spacing of the two largest
//    estimates b (E[X(n) − X(n−1)] = b for an exponential tail).
// Several runs of one machine (compare's base runs, a fleet host's repeated reports) give the between-run
// spread directly; with k runs its 95 % coverage needs Student's t with k − 1 degrees of freedom, not z
// (GUM G.3), which student_t95 gives.
//
// A comparison judges many metrics at once (a quick run has ~80): at 95 % per metric, two identical runs
// would show ~4 "changes" by chance alone. The decision a comparison makes — did this machine regress? — is
// one decision over the whole family, so its per-metric z is Šidák's: each of m metrics is judged at the
// confidence 0.95^(1/m), so that together they have a 95 % chance of no false alarm (Šidák 1967; exact for
// independent tests, conservative for positively correlated ones, as a report's metrics are).
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
// value is 0 or not finite, or the interval is open (a bound not finite: no spread to state, which a judge
// must tell from a spread of 0 by looking at the bounds).
double relative_sigma(const ConfidenceInterval& ci, double value);

// The ranks (1-based) of the order statistics that bound the q-quantile of n independent samples with at
// least 95 % confidence: the count of samples below the quantile is Binomial(n, q), and lo and hi are its
// exact 2.5 % and 97.5 % points (lo the largest rank with P(count < lo) ≤ 2.5 %, hi the smallest with P(count
// < hi) ≥ 97.5 %), so X(lo) ≤ quantile < X(hi) with probability ≥ 95 %, whatever the distribution. When too
// few samples lie beyond the quantile no order statistic bounds it on that side: lo is 0 (open below) or hi
// is n + 1 (open above): p99.99 of 4,851 samples, whose slowest sample is beyond it only 38 % of the time,
// has no upper bound. {0, 0} when n is 0.
struct RankInterval {
  double lo = 0, hi = 0;
};
RankInterval quantile_rank_interval(double n, double q);
// The fewest samples whose order statistics bound the q-quantile on both sides (quantile_rank_interval gives
// ranks in [1, n]): the n with q^n ≤ 2.5 % and (1 − q)^n ≤ 2.5 %; 0 for q outside (0, 1), which no sample
// count bounds.
double quantile_samples_needed(double q);

// 1 / Φ⁻¹(0.75): MAD × this estimates σ for normal data.
inline constexpr double kMadToSigma = 1.482602;
// sqrt(π/2): the standard error of a median over that of a mean, for normal data.
inline constexpr double kMedianEfficiency = 1.253314;

// The standard error of the median of the samples (sqrt(π/2) · 1.4826 · MAD / sqrt(n)), in their unit; 0 for
// fewer than two.
double median_standard_error(const Stats& s);
// The standard error of the mean of the samples (s / sqrt(n)), in their unit; 0 for fewer than two.
double mean_standard_error(const Stats& s);
// The standard deviation of the largest of the values as a Gumbel variable: π/sqrt(6) × the spacing of the
// two largest; 0 for fewer than two.
double maximum_standard_deviation(std::span<const double> values);
// The sample standard deviation of ln(value) (n − 1 in the denominator): the relative spread of values whose
// variation is multiplicative (rates, latencies), alike for a change up and down. 0 for fewer than two
// values; the values must be positive.
double log_standard_deviation(std::span<const double> values);
// Student's t of a two-sided 95 % interval with `dof` degrees of freedom (kConfidenceZ for an infinite
// number; dof 0 is treated as 1).
double student_t95(std::size_t dof);
// Φ⁻¹(p), the standard normal quantile, for p in (0, 1): Acklam's rational approximation (relative error
// < 1.2e-9) refined by one Halley step on std::erfc.
double normal_quantile(double p);
// The two-sided z at which `metrics` independent comparisons have together a 95 % chance of no value beyond
// it by chance (Šidák): Φ⁻¹(1 − α/2) with α = 1 − 0.95^(1/metrics); kConfidenceZ for one (or zero) metric.
double family_z95(std::size_t metrics);
// value ± kConfidenceZ · sigma.
ConfidenceInterval symmetric_ci(double value, double sigma);
// An independent component of standard deviation `sigma` added to each side of `ci` around `value` (root sum
// of squares of the half-widths, GUM 5.1.2).
ConfidenceInterval widen(const ConfidenceInterval& ci, double value, double sigma);

}  // namespace mlbench
