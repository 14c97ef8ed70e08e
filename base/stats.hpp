// Order statistics and spread of a sample set: pure functions, unit-tested.
//
// Percentiles use linear interpolation between closest ranks (the "R-7" definition used by numpy's default),
// so p50 of an even-sized set is the mean of the two middle values. CV is the sample standard deviation
// (n-1) over the mean; MAD is the median absolute deviation from the median (unscaled).
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

}  // namespace mlbench
