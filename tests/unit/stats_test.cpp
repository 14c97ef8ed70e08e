#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "base/error.hpp"
#include "base/stats.hpp"

namespace mlbench {

TEST(Stats, PercentilesInterpolateBetweenRanks) {
  std::vector<double> v{4, 1, 3, 2};  // sorted 1 2 3 4
  Stats s = compute_stats(v);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p10, 1.3);  // pos 0.3 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 3.7);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  // sample sd of 1..4 = sqrt(5/3)
  EXPECT_NEAR(s.cv, std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);  // |x-2.5| = 1.5 .5 .5 1.5 -> median 1
}

// The spread of ln(value): two values a factor of e apart have logs 0 and 1 apart, an SD of 1/sqrt(2); a
// common factor on every value does not change it.
TEST(Stats, LogStandardDeviationIsTheSpreadOfTheLogs) {
  const std::vector<double> v{1.0, std::exp(1.0)};
  EXPECT_NEAR(log_standard_deviation(v), 1.0 / std::sqrt(2.0), 1e-12);
  const std::vector<double> scaled{1000.0, 1000.0 * std::exp(1.0)};
  EXPECT_NEAR(log_standard_deviation(scaled), 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(log_standard_deviation(std::vector<double>{5.0}), 0.0);
}

TEST(Stats, SingleValueHasNoSpread) {
  std::vector<double> v{7};
  Stats s = compute_stats(v);
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_DOUBLE_EQ(s.mad, 0);
}

TEST(Stats, EmptySetIsZeroAndPercentileThrows) {
  std::vector<double> v;
  EXPECT_EQ(compute_stats(v).n, 0u);
  EXPECT_THROW(percentile_sorted(v, 0.5), Error);
}

TEST(Stats, MadIsRobustToOneOutlier) {
  std::vector<double> v{10, 10, 10, 11, 9, 1000};
  EXPECT_DOUBLE_EQ(median(v), 10);
  EXPECT_DOUBLE_EQ(mad(v), 0.5);
}

// The interval between the order statistics at the returned ranks holds the true quantile in >= 95 % of runs:
// for uniform samples X_(r) <= q exactly when at least r samples fall below q, a Binomial(n, q) count, so
// each simulated run is one binomial draw. Covers the centre, p99 of 2,000, p99.99 of 50,000 (~5 samples
// beyond it) and small tails of a few hundred samples, where the normal approximation is weakest: the exact
// binomial ranks hold their 95 % there too.
TEST(Stats, QuantileRankIntervalCoversTheTrueQuantile95PercentOfRuns) {
  std::mt19937_64 rng(7);
  for (auto [n, q] : {std::pair{1000.0, 0.5}, std::pair{2000.0, 0.99}, std::pair{50000.0, 0.9999},
                      std::pair{400.0, 0.99}, std::pair{4000.0, 0.999}, std::pair{12.0, 0.5}}) {
    SCOPED_TRACE(::testing::Message() << "n " << n << " q " << q);
    const RankInterval r = quantile_rank_interval(n, q);
    ASSERT_GE(r.lo, 1);
    ASSERT_LE(r.hi, n);
    EXPECT_LT(r.lo, n * q);
    EXPECT_GT(r.hi, n * q);
    std::binomial_distribution<long> below(static_cast<long>(n), q);
    int covered = 0;
    constexpr int kRuns = 4000;
    for (int i = 0; i < kRuns; ++i) {
      const long k = below(rng);
      covered += k >= static_cast<long>(r.lo) && k < static_cast<long>(r.hi) ? 1 : 0;
    }
    const double coverage = static_cast<double>(covered) / kRuns;
    EXPECT_GT(coverage, 0.94);
    EXPECT_LT(coverage, 0.995);
  }
}

// Too few samples beyond a tail percentile: no order statistic bounds it on that side, and the interval says
// so (hi n + 1) instead of stopping at the slowest sample. p99.99 of 4,851 (a quick run's 1 MiB write job):
// the slowest sample lies beyond the true p99.99 only 1 − 0.9999^4851 = 38 % of the time, so [X(4849),
// X(4851)] would be a 38 % interval at best; it takes 36,887 samples (0.9999^n <= 2.5 %) for a bound.
TEST(Stats, QuantileRankIntervalIsOpenWithTooFewSamplesBeyondIt) {
  const RankInterval tail = quantile_rank_interval(4851, 0.9999);
  EXPECT_DOUBLE_EQ(tail.hi, 4852);
  EXPECT_GE(tail.lo, 4840);
  EXPECT_DOUBLE_EQ(quantile_samples_needed(0.9999), 36887);
  EXPECT_DOUBLE_EQ(quantile_rank_interval(36886, 0.9999).hi, 36887);  // still open
  EXPECT_DOUBLE_EQ(quantile_rank_interval(36887, 0.9999).hi, 36887);  // bounded by the slowest
  EXPECT_DOUBLE_EQ(quantile_samples_needed(0.999), 3688);
  EXPECT_DOUBLE_EQ(quantile_samples_needed(0.5), 6);
  // The median of 5: open on both sides (0.5^5 = 3.1 % > 2.5 %); of 6, bounded by the extremes.
  const RankInterval five = quantile_rank_interval(5, 0.5);
  EXPECT_DOUBLE_EQ(five.lo, 0);
  EXPECT_DOUBLE_EQ(five.hi, 6);
  const RankInterval six = quantile_rank_interval(6, 0.5);
  EXPECT_DOUBLE_EQ(six.lo, 1);
  EXPECT_DOUBLE_EQ(six.hi, 6);
  const RankInterval none = quantile_rank_interval(0, 0.5);
  EXPECT_DOUBLE_EQ(none.lo, 0);
  EXPECT_DOUBLE_EQ(none.hi, 0);
}

TEST(Stats, RelativeSigmaIsTheHalfWidthOverZ) {
  EXPECT_NEAR(relative_sigma({90, 110}, 100), 10 / (kConfidenceZ * 100), 1e-12);
  EXPECT_DOUBLE_EQ(relative_sigma({1, 2}, 0), 0);
  EXPECT_DOUBLE_EQ(relative_sigma({1, std::nan("")}, 1), 0);
}

// The spread of the statistic, not of the samples: the median of n normal samples varies between runs by
// sqrt(π/2)·σ/sqrt(n), and 1.4826·MAD estimates σ; simulated runs of 41 samples land within ±1.96 of their
// own standard error of the true median in ~95 % of runs.
TEST(Stats, MedianStandardErrorCoversTheTrueMedian95PercentOfRuns) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> draw(100, 10);
  constexpr int kRuns = 4000;
  int covered = 0;
  double se_sum = 0;
  for (int i = 0; i < kRuns; ++i) {
    std::vector<double> v(41);
    for (auto& x : v) x = draw(rng);
    const Stats s = compute_stats(v);
    const double se = median_standard_error(s);
    se_sum += se;
    covered += std::fabs(s.median - 100) < kConfidenceZ * se ? 1 : 0;
  }
  EXPECT_NEAR(se_sum / kRuns, kMedianEfficiency * 10 / std::sqrt(41.0), 0.15);
  const double coverage = static_cast<double>(covered) / kRuns;
  EXPECT_GT(coverage, 0.92);
  EXPECT_LT(coverage, 0.98);
}

// One stalled interval among 19 (30 ms against ~0.1 ms) makes the samples' CV 4 (a band of ±1,100 %), yet
// moves their median by one rank: the median's standard error stays at the scale of the other intervals.
TEST(Stats, MedianStandardErrorIgnoresTheSizeOfOneOutlier) {
  std::vector<double> v;
  for (int i = 0; i < 18; ++i) v.push_back(100e-6 + (i % 6) * 2e-6);
  v.push_back(30e-3);
  const Stats s = compute_stats(v);
  EXPECT_GT(s.cv, 3);
  EXPECT_LT(median_standard_error(s) / s.median, 0.03);
  EXPECT_NEAR(median_standard_error(s), kMedianEfficiency * kMadToSigma * s.mad / std::sqrt(19.0), 1e-15);
  // A mean is moved by the stall's size, and so is its standard error.
  EXPECT_NEAR(mean_standard_error(s), s.cv * s.mean / std::sqrt(19.0), 1e-15);
  EXPECT_GT(mean_standard_error(s) / s.mean, 0.5);
  EXPECT_EQ(median_standard_error(compute_stats(std::vector<double>{5})), 0);
  EXPECT_EQ(mean_standard_error(compute_stats(std::vector<double>{5})), 0);
}

// The largest of 50 exponential draws of scale 1 varies between runs as a Gumbel variable, σ = π/sqrt(6) =
// 1.28; the estimate from each run's two largest agrees on average.
TEST(Stats, MaximumStandardDeviationMatchesTheSpreadOfMaxima) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> draw(1.0);
  constexpr int kRuns = 4000;
  std::vector<double> maxima;
  double estimate = 0;
  for (int i = 0; i < kRuns; ++i) {
    std::vector<double> v(50);
    for (auto& x : v) x = draw(rng);
    maxima.push_back(*std::max_element(v.begin(), v.end()));
    estimate += maximum_standard_deviation(v);
  }
  const Stats spread = compute_stats(maxima);
  EXPECT_NEAR(spread.cv * spread.mean, 1.2825, 0.08);
  EXPECT_NEAR(estimate / kRuns, 1.2825, 0.08);
  EXPECT_EQ(maximum_standard_deviation(std::vector<double>{3}), 0);
}

TEST(Stats, StudentTWidensTheIntervalOfFewRuns) {
  EXPECT_NEAR(student_t95(1), 12.706, 1e-3);
  EXPECT_NEAR(student_t95(0), 12.706, 1e-3);
  EXPECT_NEAR(student_t95(4), 2.776, 1e-3);
  EXPECT_NEAR(student_t95(11), 2.201, 1e-3);
  EXPECT_NEAR(student_t95(30), 2.042, 1e-3);
  EXPECT_NEAR(student_t95(40), 2.021, 1e-3);
  EXPECT_NEAR(student_t95(120), 1.980, 1e-3);
  EXPECT_NEAR(student_t95(100000), kConfidenceZ, 1e-4);
}

TEST(Stats, IndependentComponentsAddInQuadrature) {
  const ConfidenceInterval ci = symmetric_ci(100, 1);
  EXPECT_NEAR(ci.hi - 100, kConfidenceZ, 1e-12);
  const ConfidenceInterval wide = widen({97, 104}, 100, 4 / kConfidenceZ);
  EXPECT_NEAR(100 - wide.lo, 5, 1e-12);
  EXPECT_NEAR(wide.hi - 100, std::hypot(4, 4), 1e-12);
}

TEST(Stats, NormalQuantileInvertsTheNormalDistribution) {
  EXPECT_NEAR(normal_quantile(0.975), kConfidenceZ, 1e-6);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.025), -kConfidenceZ, 1e-6);
  EXPECT_NEAR(normal_quantile(0.999), 3.090232, 1e-6);
  EXPECT_NEAR(normal_quantile(1e-9), -5.997807, 1e-5);  // the lower tail branch
  for (double p : {1e-6, 0.01, 0.2, 0.7, 0.99, 1 - 1e-7})
    EXPECT_NEAR(0.5 * std::erfc(-normal_quantile(p) / std::sqrt(2.0)), p, 1e-9 * std::max(1.0, p / 1e-6));
  EXPECT_THROW(normal_quantile(0), Error);
  EXPECT_THROW(normal_quantile(1), Error);
}

TEST(Stats, FamilyZKeepsAFamilyOfComparisonsAt95Percent) {
  EXPECT_NEAR(family_z95(1), kConfidenceZ, 1e-9);
  EXPECT_NEAR(family_z95(0), kConfidenceZ, 1e-9);
  // Šidák: 83 metrics each at 0.95^(1/83) two-sided.
  EXPECT_NEAR(family_z95(83), 3.42368, 1e-4);
  EXPECT_NEAR(family_z95(10), 2.79963, 1e-4);
  // Together the family keeps 95 %: P(all |Z| < z) = (1 − 2·(1 − Φ(z)))^m.
  for (std::size_t m : {2, 7, 83, 1000}) {
    double per = std::erf(family_z95(m) / std::sqrt(2.0));
    EXPECT_NEAR(std::pow(per, static_cast<double>(m)), 0.95, 1e-6) << m;
  }
}

}  // namespace mlbench
