#include "storage/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mlbench::storage {
namespace {

// 36887 → "36,887": counts as the table shows them.
std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::uint64_t LatencyHistogram::bucket_low(std::size_t i) {
  if (i < kSub) return i;
  std::size_t k = i - kSub;
  std::size_t shift = k / kHalf + 1;
  std::uint64_t mantissa = kHalf + k % kHalf;
  return mantissa << shift;
}

std::uint64_t LatencyHistogram::bucket_width(std::size_t i) {
  if (i < kSub) return 1;
  return std::uint64_t{1} << ((i - kSub) / kHalf + 1);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

void LatencyHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  max_ = 0;
  min_ = UINT64_MAX;
  sum_ = 0;
  sum_sq_ = 0;
}

double LatencyHistogram::stddev() const {
  if (total_ < 2) return 0.0;
  const auto n = static_cast<double>(total_);
  const double mean = static_cast<double>(sum_) / n;
  return std::sqrt(std::max(0.0, (sum_sq_ - n * mean * mean) / (n - 1)));
}

std::uint64_t LatencyHistogram::count_below(std::uint64_t ns) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    // The bucket's midpoint; a bucket of width 1 holds one exact value. Buckets ascend: the first at or
    // above `ns` ends the count.
    const std::uint64_t width = bucket_width(i);
    if (bucket_low(i) + width / 2 >= ns) break;
    n += counts_[i];
  }
  return n;
}

double LatencyHistogram::percentile(double q) const {
  if (total_ == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  return at_rank(static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_))));
}

double LatencyHistogram::at_rank(std::uint64_t rank) const {
  rank = std::clamp<std::uint64_t>(rank, 1, total_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      double mid = static_cast<double>(bucket_low(i)) + (static_cast<double>(bucket_width(i)) - 1) / 2.0;
      return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

ConfidenceInterval LatencyHistogram::percentile_ci(double q) const {
  if (total_ == 0) return {};
  const auto n = static_cast<double>(total_);
  const RankInterval r = quantile_rank_interval(n, q);
  const double value = percentile(q);
  const auto width = static_cast<double>(resolution(static_cast<std::uint64_t>(value)));
  constexpr double kOpen = std::numeric_limits<double>::infinity();
  const ConfidenceInterval ranks{r.lo < 1 ? -kOpen : at_rank(static_cast<std::uint64_t>(r.lo)),
                                 r.hi > n ? kOpen : at_rank(static_cast<std::uint64_t>(r.hi))};
  return widen(ranks, value, width / std::sqrt(12.0));
}

void set_percentile_ci(Metric& m, const LatencyHistogram& h, double q, std::string_view samples) {
  if (h.count() == 0) return;
  const ConfidenceInterval ns = h.percentile_ci(q);
  m.ci = ConfidenceInterval{ns.lo * 1e-9, ns.hi * 1e-9};
  if (std::isfinite(ns.lo) && std::isfinite(ns.hi)) return;
  m.ci_open = fmt::format("p{:g} of {} {}: needs ≥ {} {}", 100 * q, format_count(h.count()), samples,
                          format_count(static_cast<std::uint64_t>(quantile_samples_needed(q))), samples);
}

}  // namespace mlbench::storage
