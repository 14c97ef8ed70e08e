// The nccl-tests table of METHODS.md "net.nccl": byte counts, bus factors, the size sweep and the summary,
// and each size's metrics with their spreads (network/nccl_probe.hpp).
#include "network/collectives.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "base/error.hpp"
#include "network/nccl_probe.hpp"
#include "report/report.hpp"

namespace mlbench::net {
namespace {

TEST(Collectives, BusFactorsMatchTheMethodsTable) {
  for (int n : {1, 2, 3, 8, 64}) {
    double d = n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, n), 2 * (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::all_gather, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::alltoall, n), (d - 1) / d) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(bus_factor(Collective::sendrecv, n), 1.0) << n;
  }
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 8), 1.75);
}

// net.nccl on one GPU: a one-rank all_reduce is a local copy with busbw 0, so the probe skips with the reason
// instead of reporting an `ok` peak of 0 B/s.
TEST(Collectives, FewerThanTwoRanksIsASkipReason) {
  EXPECT_EQ(bus_factor(Collective::all_reduce, 1), 0.0);
  auto why = too_few_ranks(1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("at least 2 ranks and this world has 1"), std::string::npos) << *why;
  EXPECT_NE(why->find("local copy"), std::string::npos) << *why;
  EXPECT_TRUE(too_few_ranks(0).has_value());
  EXPECT_FALSE(too_few_ranks(2).has_value());
  EXPECT_FALSE(too_few_ranks(64).has_value());
}

TEST(Collectives, EveryCollectiveAndTypeHasAName) {
  EXPECT_EQ(collectives().size(), 7u);
  for (const auto& c : collectives()) {
    EXPECT_EQ(collective_from_name(c.name), c.id);
    EXPECT_EQ(&spec(c.id), &c);
  }
  for (const auto& t : data_types()) EXPECT_EQ(data_type_from_name(t.name), t.id);
  EXPECT_EQ(spec(DataType::float32).size, 4u);
  EXPECT_EQ(spec(DataType::bf16).size, 2u);
  EXPECT_EQ(spec(DataType::half).size, 2u);
  EXPECT_EQ(spec(DataType::int8).size, 1u);
}

TEST(Collectives, UnknownNamesAreUsageErrorsListingTheChoices) {
  try {
    collective_from_name("allreduce");
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos);
  }
  EXPECT_THROW(data_type_from_name("fp64"), UsageError);
}

TEST(Collectives, CallSizesFollowNcclTests) {
  constexpr std::uint64_t kMiB = 1 << 20;
  auto ar = call_size(Collective::all_reduce, kMiB, 4, 8);
  EXPECT_EQ(ar.count, kMiB / 4);
  EXPECT_EQ(ar.bytes, kMiB);
  EXPECT_EQ(ar.send_bytes, kMiB);
  EXPECT_EQ(ar.recv_bytes, kMiB);

  // S is the whole gathered array: count per rank = S / typesize / n.
  auto ag = call_size(Collective::all_gather, kMiB, 4, 8);
  EXPECT_EQ(ag.count, kMiB / 4 / 8);
  EXPECT_EQ(ag.bytes, kMiB);
  EXPECT_EQ(ag.send_bytes, kMiB / 8);
  EXPECT_EQ(ag.recv_bytes, kMiB);

  auto rs = call_size(Collective::reduce_scatter, kMiB, 2, 8);
  EXPECT_EQ(rs.count, kMiB / 2 / 8);
  EXPECT_EQ(rs.send_bytes, kMiB);
  EXPECT_EQ(rs.recv_bytes, kMiB / 8);

  auto a2a = call_size(Collective::alltoall, kMiB, 1, 4);
  EXPECT_EQ(a2a.count, kMiB / 4);
  EXPECT_EQ(a2a.send_bytes, kMiB);
  EXPECT_EQ(a2a.recv_bytes, kMiB);

  // Rounded down to whole elements per rank.
  auto odd = call_size(Collective::all_gather, 100, 4, 8);
  EXPECT_EQ(odd.count, 3u);
  EXPECT_EQ(odd.bytes, 96u);
  EXPECT_EQ(call_size(Collective::all_gather, 8, 4, 8).count, 0u);
  EXPECT_EQ(call_size(Collective::sendrecv, 10, 4, 8).bytes, 8u);
}

TEST(Collectives, DefaultSweepIsEightBytesToEightGiBByTwo) {
  auto s = sweep_sizes(8, std::uint64_t{8} << 30, 2);
  ASSERT_EQ(s.size(), 31u);
  EXPECT_EQ(s.front(), 8u);
  EXPECT_EQ(s.back(), std::uint64_t{8} << 30);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i], 2 * s[i - 1]);
}

TEST(Collectives, SweepEndsAtMaxAndDeduplicates) {
  constexpr std::uint64_t kMiB = 1 << 20;
  EXPECT_EQ(sweep_sizes(kMiB, 1024 * kMiB, 8),
            (std::vector<std::uint64_t>{kMiB, 8 * kMiB, 64 * kMiB, 512 * kMiB, 1024 * kMiB}));
  EXPECT_EQ(sweep_sizes(1, 3, 1.1), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(sweep_sizes(64, 64, 2), (std::vector<std::uint64_t>{64}));
}

TEST(Collectives, BadSweepsAreUsageErrors) {
  EXPECT_THROW(sweep_sizes(1024, 8, 2), UsageError);
  EXPECT_THROW(sweep_sizes(8, 1024, 1), UsageError);
  EXPECT_THROW(sweep_sizes(8, 1024, 0.5), UsageError);
  EXPECT_THROW(sweep_sizes(0, 1024, 2), UsageError);
}

TEST(Collectives, SummaryAveragesRanksAndNamesTheSlowest) {
  std::vector<double> t{1e-3, 3e-3, 2e-3};
  auto s = summarize(Collective::all_reduce, 6000000, 3, t);
  EXPECT_DOUBLE_EQ(s.mean_s, 2e-3);
  EXPECT_DOUBLE_EQ(s.slowest_s, 3e-3);
  EXPECT_EQ(s.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.algbw, 6000000 / 2e-3);
  EXPECT_DOUBLE_EQ(s.busbw, s.algbw * 4.0 / 3.0);
  EXPECT_THROW(summarize(Collective::all_reduce, 8, 1, {}), Error);
  std::vector<double> zero{0.0};
  EXPECT_THROW(summarize(Collective::broadcast, 8, 1, zero), Error);
}

// Every size's metric carries the spread of the statistic it is, which compare judges against: the mean time
// s/sqrt(n) of the ranks' times, the bandwidths its relative spread, the slowest rank the Gumbel spread of
// the two slowest.
TEST(NcclMetrics, EachFigureCarriesItsStatisticsSpread) {
  const std::vector<double> t{1.00e-3, 1.10e-3, 0.90e-3, 1.05e-3};
  const auto timing = summarize(Collective::all_reduce, 8000000, 4, t);
  Result r;
  add_size_metrics(r, timing, t);
  for (const auto& m : r.metrics) {
    SCOPED_TRACE(m.name);
    EXPECT_GT(relative_spread(m), 0);
  }
  const double mean = 1.0125e-3;
  double ss = 0;
  for (double x : t) ss += (x - mean) * (x - mean);
  const double mean_sigma = std::sqrt(ss / 3) / 2;  // s / sqrt(4)
  const Metric* time = r.metric("time");
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(time->value, mean);
  ASSERT_TRUE(time->ci.has_value());
  EXPECT_NEAR(time->ci->hi - time->ci->lo, 2 * kConfidenceZ * mean_sigma, 1e-12);
  for (const char* name : {"busbw", "algbw"}) {
    const Metric* m = r.metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_NEAR(relative_spread(*m), mean_sigma / mean, 1e-9) << name;
  }
  const Metric* slowest = r.metric("time_slowest_rank");
  ASSERT_NE(slowest, nullptr);
  ASSERT_TRUE(slowest->ci.has_value());
  const double gumbel = std::numbers::pi / std::sqrt(6.0) * (1.10e-3 - 1.05e-3);
  EXPECT_NEAR(slowest->ci->hi - slowest->ci->lo, 2 * kConfidenceZ * gumbel, 1e-6 * gumbel);
}

// One process times every local GPU with one clock: equal times give no ci, not a zero-width one.
TEST(NcclMetrics, EqualRankTimesGiveNoSpread) {
  const std::vector<double> t(8, 2e-3);
  Result r;
  add_size_metrics(r, summarize(Collective::all_gather, 1 << 20, 8, t), t);
  ASSERT_EQ(r.metrics.size(), 4u);
  for (const auto& m : r.metrics) EXPECT_FALSE(m.ci.has_value()) << m.name;
}

// The same equal ranks, timed in 5 chunks of the loop by events: the loop's own steadiness is the spread —
// s/sqrt(5) of the chunks' per-call means, relative to their mean, on every figure.
TEST(NcclMetrics, ChunksOfTheLoopGiveTheSpreadWhenTheRanksAreEqual) {
  const std::vector<double> t(8, 2e-3);
  const std::vector<double> chunks{1.9e-3, 2.0e-3, 2.1e-3, 2.0e-3, 2.0e-3};
  Result r;
  add_size_metrics(r, summarize(Collective::all_gather, 1 << 20, 8, t), t, chunks);
  double ss = 0;
  for (double x : chunks) ss += (x - 2e-3) * (x - 2e-3);
  const double relative = std::sqrt(ss / 4) / std::sqrt(5.0) / 2e-3;
  ASSERT_EQ(r.metrics.size(), 4u);
  for (const auto& m : r.metrics) {
    SCOPED_TRACE(m.name);
    ASSERT_TRUE(m.ci.has_value());
    EXPECT_NEAR(relative_spread(m), relative, 1e-9);
  }
  // Ranks that differ more than the loop wavers keep their own spread.
  const std::vector<double> skewed{1e-3, 1.2e-3, 0.9e-3, 1.1e-3};
  Result wide;
  add_size_metrics(wide, summarize(Collective::all_reduce, 1 << 20, 4, skewed), skewed,
                   std::vector<double>{1.05e-3, 1.05e-3, 1.05e-3});
  EXPECT_GT(relative_spread(*wide.metric("time")), 0.05);
}

}  // namespace
}  // namespace mlbench::net
