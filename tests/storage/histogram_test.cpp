#include "storage/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace mlbench::storage {
namespace {

TEST(LatencyHistogram, BucketsCoverEveryValueWithUnderOnePercentWidth) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t v = rng() >> (rng() % 64);
    std::size_t idx = LatencyHistogram::index_of(v);
    ASSERT_LT(idx, LatencyHistogram::kBuckets);
    std::uint64_t lo = LatencyHistogram::bucket_low(idx), width = LatencyHistogram::bucket_width(idx);
    ASSERT_LE(lo, v);
    ASSERT_LE(v - lo, width - 1);
    // Width 1 is exact; wider buckets stay under 1 % of their lower bound.
    if (width > 1) {
      ASSERT_LE(static_cast<double>(width) / static_cast<double>(lo), 0.01) << v;
    }
  }
  EXPECT_EQ(LatencyHistogram::index_of(~0ull), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, IndicesAreMonotonicAndContiguous) {
  for (std::size_t i = 0; i + 1 < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::bucket_low(i) + LatencyHistogram::bucket_width(i),
              LatencyHistogram::bucket_low(i + 1))
        << i;
    ASSERT_EQ(LatencyHistogram::index_of(LatencyHistogram::bucket_low(i)), i);
  }
}

TEST(LatencyHistogram, PercentilesWithinOnePercentOfExactOrderStatistics) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dist(11.0, 1.0);  // ~60 us median with a long tail
  LatencyHistogram h;
  std::vector<std::uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    auto v = static_cast<std::uint64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999}) {
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))) - 1;
    double exact = static_cast<double>(values[rank]);
    EXPECT_NEAR(h.percentile(q), exact, exact * 0.01) << q;
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.count(), values.size());
  double prev = 0;
  for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    EXPECT_GE(h.percentile(q), prev);
    prev = h.percentile(q);
  }
  EXPECT_LE(h.percentile(1.0), static_cast<double>(h.max()));
}

TEST(LatencyHistogram, MergeEqualsRecordingEverything) {
  LatencyHistogram a, b, all;
  for (std::uint64_t v = 1; v < 5000000; v = v * 3 + 1) {
    (v % 2 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_DOUBLE_EQ(a.percentile(0.5), all.percentile(0.5));
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  a.reset();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.percentile(0.99), 0.0);
}

// The standard deviation fio prints (lat/clat/slat stdev) is the exact sample one of the recorded values, and
// a merge keeps it; a single value has none.
TEST(LatencyHistogram, StddevIsTheSampleStandardDeviationOfTheValues) {
  LatencyHistogram a, b, all;
  std::vector<double> values;
  for (std::uint64_t v = 1000; v < 9000000; v = v * 2 + 17) {
    (v % 3 ? a : b).record(v);
    all.record(v);
    values.push_back(static_cast<double>(v));
  }
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(values.size() - 1));
  EXPECT_NEAR(all.stddev(), sd, sd * 1e-9);
  a.merge(b);
  EXPECT_NEAR(a.stddev(), sd, sd * 1e-9);
  LatencyHistogram one;
  one.record(5000);
  EXPECT_EQ(one.stddev(), 0.0);
  EXPECT_EQ(LatencyHistogram().stddev(), 0.0);
}

// fio's latency distribution (latency_ns/us/ms: the share of I/Os in each range) reads the counts below a
// bound: exact in the exact range, to the bucket (<= 0.4 %) above it.
TEST(LatencyHistogram, CountBelowABound) {
  LatencyHistogram h;
  for (std::uint64_t v = 1; v <= 100; ++v) h.record(v);  // exact range
  for (int i = 0; i < 50; ++i) h.record(40'000);         // 40 us
  for (int i = 0; i < 25; ++i) h.record(3'000'000);      // 3 ms
  EXPECT_EQ(h.count_below(0), 0u);
  EXPECT_EQ(h.count_below(10), 9u);  // 1..9
  EXPECT_EQ(h.count_below(101), 100u);
  EXPECT_EQ(h.count_below(39'000), 100u);
  EXPECT_EQ(h.count_below(41'000), 150u);
  EXPECT_EQ(h.count_below(2'900'000), 150u);
  EXPECT_EQ(h.count_below(3'100'000), 175u);
  EXPECT_EQ(h.count_below(UINT64_MAX), h.count());
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (std::uint64_t v = 1; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.percentile(0.5), 50.0);
  EXPECT_EQ(h.percentile(0.99), 99.0);
}

// A percentile read from a histogram is known to its bucket, not better: 10,000 I/Os
// within 100 ns of 1 ms all fall in one 4,096 ns bucket, so every order statistic of the interval is the same
// reading, yet the interval spans ±1.96 × width / sqrt(12) (the bucket as a rectangular distribution).
TEST(LatencyHistogram, PercentileIntervalIsNoNarrowerThanItsBucket) {
  LatencyHistogram h;
  for (int i = 0; i < 10000; ++i) h.record(1'000'000 + static_cast<std::uint64_t>(i % 100));
  const double width = static_cast<double>(LatencyHistogram::resolution(1'000'000));
  EXPECT_EQ(width, 4096);
  EXPECT_EQ(h.percentile(0.01), h.percentile(0.99));
  const ConfidenceInterval ci = h.percentile_ci(0.5);
  EXPECT_NEAR(h.percentile(0.5) - ci.lo, kConfidenceZ * width / std::sqrt(12.0), 1e-6);
  EXPECT_NEAR(ci.hi - h.percentile(0.5), kConfidenceZ * width / std::sqrt(12.0), 1e-6);
  // Below 256 ns every nanosecond has its own bucket.
  EXPECT_EQ(LatencyHistogram::resolution(200), 1u);
  const ConfidenceInterval none = LatencyHistogram().percentile_ci(0.5);
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 0);
}

// The slowest of 4,851 I/Os is no upper bound of their p99.99 (it lies beyond the true p99.99 only 38 % of
// the time): the interval is open above, and the metric says why, for compare; with 40,000 I/Os the slowest
// few bound it. Latencies 1..n µs, so every order statistic is its own reading.
TEST(LatencyHistogram, TailIntervalIsOpenAboveWithTooFewIosBeyondIt) {
  auto histogram = [](std::uint64_t n) {
    LatencyHistogram h;
    for (std::uint64_t i = 1; i <= n; ++i) h.record(i * 1000);
    return h;
  };
  const LatencyHistogram few = histogram(4851);
  const ConfidenceInterval open = few.percentile_ci(0.9999);
  EXPECT_TRUE(std::isinf(open.hi) && open.hi > 0) << open.lo << " " << open.hi;
  EXPECT_LT(open.lo, few.percentile(0.9999));
  Metric m{"lat_p9999", few.percentile(0.9999) * 1e-9, "s", Better::lower, std::nullopt, std::nullopt};
  set_percentile_ci(m, few, 0.9999, "I/Os");
  ASSERT_TRUE(m.ci.has_value());
  EXPECT_TRUE(std::isinf(m.ci->hi));
  EXPECT_EQ(m.ci_open, "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os");
  // p99 of the same I/Os has ~49 beyond it: bounded, with no reason.
  Metric p99{"lat_p99", few.percentile(0.99) * 1e-9, "s", Better::lower, std::nullopt, std::nullopt};
  set_percentile_ci(p99, few, 0.99, "I/Os");
  EXPECT_TRUE(std::isfinite(p99.ci->lo) && std::isfinite(p99.ci->hi));
  EXPECT_EQ(p99.ci_open, "");
  const LatencyHistogram many = histogram(40000);
  const ConfidenceInterval bounded = many.percentile_ci(0.9999);
  EXPECT_TRUE(std::isfinite(bounded.hi));
  EXPECT_GT(bounded.hi, many.percentile(0.9999));
  EXPECT_LE(bounded.hi, static_cast<double>(many.max()) * 1.01);
}

}  // namespace
}  // namespace mlbench::storage
