#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace mlbench
