#include <gtest/gtest.h>

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

// The interval between the order statistics at the returned ranks holds the true quantile in ~95 % of runs:
// for uniform samples X_(r) <= q exactly when at least r samples fall below q, a Binomial(n, q) count, so
// each simulated run is one binomial draw. Covers the centre, p99 of 2,000 and p99.99 of 50,000 (~5 samples
// beyond it, where the normal approximation is weakest).
TEST(Stats, QuantileRankIntervalCoversTheTrueQuantile95PercentOfRuns) {
  std::mt19937_64 rng(7);
  for (auto [n, q] : {std::pair{1000.0, 0.5}, std::pair{2000.0, 0.99}, std::pair{50000.0, 0.9999}}) {
    SCOPED_TRACE(::testing::Message() << "n " << n << " q " << q);
    const RankInterval r = quantile_rank_interval(n, q);
    EXPECT_LT(r.lo, n * q);
    EXPECT_GT(r.hi, n * q);
    std::binomial_distribution<long> below(static_cast<long>(n), q);
    int covered = 0;
    constexpr int kRuns = 4000;
    for (int i = 0; i < kRuns; ++i) {
      const long k = below(rng);
      covered += k >= static_cast<long>(std::floor(r.lo)) && k < static_cast<long>(std::ceil(r.hi)) ? 1 : 0;
    }
    const double coverage = static_cast<double>(covered) / kRuns;
    EXPECT_GT(coverage, 0.93);
    EXPECT_LT(coverage, 0.99);
  }
}

TEST(Stats, QuantileRankIntervalStaysInsideTheSample) {
  const RankInterval tail = quantile_rank_interval(100, 0.9999);
  EXPECT_DOUBLE_EQ(tail.hi, 100);
  EXPECT_GE(tail.lo, 1);
  const RankInterval none = quantile_rank_interval(0, 0.5);
  EXPECT_DOUBLE_EQ(none.lo, 0);
  EXPECT_DOUBLE_EQ(none.hi, 0);
}

TEST(Stats, RelativeSigmaIsTheHalfWidthOverZ) {
  EXPECT_NEAR(relative_sigma({90, 110}, 100), 10 / (kConfidenceZ * 100), 1e-12);
  EXPECT_DOUBLE_EQ(relative_sigma({1, 2}, 0), 0);
  EXPECT_DOUBLE_EQ(relative_sigma({1, std::nan("")}, 1), 0);
}

}  // namespace mlbench
