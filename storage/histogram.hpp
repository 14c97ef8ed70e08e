// Log-linear latency histogram (the HdrHistogram / fio layout) for per-I/O latencies in nanoseconds.
//
// Values below 2^kSubBits are counted exactly; above, each power-of-two range is split into 2^(kSubBits-1)
// equal buckets, so a bucket's width is at most 1/128 of its lower bound and reporting its midpoint is off by
// at most 0.4 % (the issue asks for <= 1 %). record() is a handful of integer instructions and one increment,
// cheap enough for every I/O; each job thread owns its histogram and the results are merged afterwards.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/stats.hpp"
#include "report/report.hpp"

namespace mlbench::storage {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 8;
  static constexpr std::uint64_t kSub = std::uint64_t{1} << kSubBits;  // exact below this
  static constexpr std::uint64_t kHalf = kSub / 2;
  static constexpr std::size_t kBuckets = kSub + (64 - kSubBits) * kHalf;

  LatencyHistogram() : counts_(kBuckets, 0) {}

  static std::size_t index_of(std::uint64_t v) {
    if (v < kSub) return static_cast<std::size_t>(v);
    int shift = std::bit_width(v) - kSubBits;  // >= 1
    std::uint64_t mantissa = v >> shift;       // in [kHalf, kSub)
    return static_cast<std::size_t>(kSub + (shift - 1) * kHalf + (mantissa - kHalf));
  }
  // The smallest value and the width of bucket i.
  static std::uint64_t bucket_low(std::size_t i);
  static std::uint64_t bucket_width(std::size_t i);
  // The width of the bucket a reading of `ns` (a percentile) comes from: the value behind the reading may be
  // anywhere in it, so no percentile is known better than this (its resolution; a rectangular distribution
  // of this width has the standard deviation width / sqrt(12), GUM F.2.2.1).
  static std::uint64_t resolution(std::uint64_t ns) { return bucket_width(index_of(ns)); }

  void record(std::uint64_t ns) {
    ++counts_[index_of(ns)];
    ++total_;
    if (ns > max_) max_ = ns;
    if (ns < min_) min_ = ns;
    sum_ += ns;
    const auto x = static_cast<double>(ns);
    sum_sq_ += x * x;
  }
  void merge(const LatencyHistogram& other);
  void reset();

  std::uint64_t count() const { return total_; }
  std::uint64_t max() const { return total_ ? max_ : 0; }
  std::uint64_t min() const { return total_ ? min_ : 0; }
  double mean() const { return total_ ? static_cast<double>(sum_) / static_cast<double>(total_) : 0.0; }
  // The sample standard deviation of the recorded values in ns (n − 1 in the denominator, as fio's stdev),
  // from their sum and sum of squares; 0 for fewer than two.
  double stddev() const;
  // How many recorded values lie below `ns`: exact below kSub, else the buckets whose midpoint is below it
  // (a value within its bucket's width, <= 0.4 %, of `ns` may fall on either side). fio's latency
  // distribution (the share of I/Os in 2-4 us, 4-10 us, ...) is read from it.
  std::uint64_t count_below(std::uint64_t ns) const;
  // The q-quantile (q in [0, 1]) in ns: the midpoint of the bucket holding the ceil(q × count)-th value,
  // clamped to [min, max]; 0 for an empty histogram.
  double percentile(double q) const;
  // The q-quantile's 95 % confidence interval in ns: the order statistics the count allows
  // (quantile_rank_interval, base/stats.hpp), with the reading's resolution added in quadrature (the bucket
  // width / sqrt(12)), so a percentile is never known better than the bucket it was read from, even when
  // every rank of the interval falls in that one bucket; a side no order statistic bounds (too few samples
  // beyond the quantile) is ±infinity: open; {0, 0} for an empty histogram.
  ConfidenceInterval percentile_ci(double q) const;

 private:
  // The value at 1-based rank `rank` (clamped to [1, count]): the midpoint of its bucket, clamped to [min,
  // max].
  double at_rank(std::uint64_t rank) const;

  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0, max_ = 0, min_ = UINT64_MAX, sum_ = 0;
  double sum_sq_ = 0;  // of the values in ns, for stddev(): 1e10² overflows 64 bits
};

// Gives `m`, the q-quantile of `h` in seconds, its 95 % confidence interval in seconds (percentile_ci) and,
// when that is open, why, for the report and compare (Metric::ci_open: "p99.99 of 4,851 I/Os: needs ≥
// 36,887 I/Os", `samples` naming what was counted); nothing for an empty histogram.
void set_percentile_ci(Metric& m, const LatencyHistogram& h, double q, std::string_view samples);

}  // namespace mlbench::storage
