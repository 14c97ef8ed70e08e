// The verification pattern: exact in every type and order, and expected_value() agrees with a host simulation
// of each collective's semantics.
#include "network/pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "network/collectives.hpp"

namespace mlbench::net {
namespace {

// What each rank holds after one call, simulated directly from the collective's definition (root 0).
std::vector<std::vector<std::int64_t>> simulate(Collective op, std::uint64_t count, int n, std::int64_t m) {
  auto in = [&](int r, std::uint64_t i) { return input_value(r, i, n, m); };
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    auto& o = out[static_cast<std::size_t>(r)];
    switch (op) {
      case Collective::all_reduce:
      case Collective::reduce:
        for (std::uint64_t j = 0; j < count; ++j) {
          std::int64_t s = 0;
          for (int q = 0; q < n; ++q) s += in(q, j);
          o.push_back(op == Collective::reduce && r != 0 ? -1 : s);
        }
        break;
      case Collective::broadcast:
        for (std::uint64_t j = 0; j < count; ++j) o.push_back(in(0, j));
        break;
      case Collective::reduce_scatter:
        for (std::uint64_t j = 0; j < count; ++j) {
          std::int64_t s = 0;
          for (int q = 0; q < n; ++q) s += in(q, static_cast<std::uint64_t>(r) * count + j);
          o.push_back(s);
        }
        break;
      case Collective::all_gather:
        for (int q = 0; q < n; ++q) {
          for (std::uint64_t k = 0; k < count; ++k) o.push_back(in(q, k));
        }
        break;
      case Collective::alltoall:
        for (int q = 0; q < n; ++q) {
          for (std::uint64_t k = 0; k < count; ++k)
            o.push_back(in(q, static_cast<std::uint64_t>(r) * count + k));
        }
        break;
      case Collective::sendrecv:
        for (std::uint64_t j = 0; j < count; ++j) o.push_back(in((r + n - 1) % n, j));
        break;
    }
  }
  return out;
}

TEST(Pattern, ExpectedValuesMatchASimulationOfEveryCollective) {
  for (const auto& c : collectives()) {
    for (int n : {1, 2, 3, 5}) {
      const std::uint64_t count = 7;
      const std::int64_t m = pattern_modulus(n, spec(DataType::bf16).exact_limit);
      auto sim = simulate(c.id, count, n, m);
      const Collective op = c.id;
      for (int r = 0; r < n; ++r) {
        const auto& o = sim[static_cast<std::size_t>(r)];
        ASSERT_EQ(o.size(), output_elements(op, count, n)) << c.name;
        for (std::uint64_t j = 0; j < o.size(); ++j) {
          EXPECT_EQ(expected_value(op, j, count, r, n, m), o[j])
              << c.name << " n=" << n << " r=" << r << " j=" << j;
        }
      }
    }
  }
}

TEST(Pattern, SumsStayExactInEveryTypeForAnyRankCount) {
  for (const auto& t : data_types()) {
    for (int n : {1, 2, 7, 8, 64, 127, 128, 300, 4096}) {
      const std::int64_t m = pattern_modulus(n, t.exact_limit);
      std::int64_t largest = 0;
      for (std::uint64_t i = 0; i < 1000; ++i) {
        std::int64_t s = reduced_value(i, n, m);
        EXPECT_GE(s, 1) << t.name << " n=" << n;
        largest = std::max(largest, s);
        for (int r = 0; r < std::min(n, 8); ++r) EXPECT_GE(input_value(r, i, n, m), 0);
      }
      // All inputs are non-negative, so every partial sum in any order is at most the total.
      EXPECT_LE(largest, t.exact_limit) << t.name << " n=" << n;
    }
  }
}

TEST(Pattern, InputsAreNotConstant) {
  const std::int64_t m = pattern_modulus(8, spec(DataType::float32).exact_limit);
  EXPECT_GT(m, 2);
  EXPECT_NE(input_value(0, 0, 8, m), input_value(0, 1, 8, m));
  EXPECT_NE(input_value(0, 0, 8, m), input_value(1, 0, 8, m));
  // With more ranks than int8 can sum, each element is 1 on exactly one rank.
  EXPECT_EQ(pattern_modulus(200, spec(DataType::int8).exact_limit), 0);
  EXPECT_EQ(reduced_value(5, 200, 0), 1);
}

TEST(Pattern, BufferElementCounts) {
  EXPECT_EQ(input_elements(Collective::reduce_scatter, 10, 4), 40u);
  EXPECT_EQ(output_elements(Collective::reduce_scatter, 10, 4), 10u);
  EXPECT_EQ(input_elements(Collective::all_gather, 10, 4), 10u);
  EXPECT_EQ(output_elements(Collective::all_gather, 10, 4), 40u);
  EXPECT_EQ(input_elements(Collective::alltoall, 10, 4), 40u);
  EXPECT_EQ(output_elements(Collective::alltoall, 10, 4), 40u);
  EXPECT_EQ(output_elements(Collective::all_reduce, 10, 4), 10u);
}

TEST(Pattern, InPlaceLayoutPutsTheRankBlockWhereNcclTestsDoes) {
  for (const auto& c : collectives()) {
    const bool gather = c.id == Collective::all_gather, scatter = c.id == Collective::reduce_scatter;
    EXPECT_EQ(in_place_send_offset(c.id, 10, 3), gather ? 30u : 0u) << c.name;
    EXPECT_EQ(in_place_recv_offset(c.id, 10, 3), scatter ? 30u : 0u) << c.name;
    // The block at the offset lies inside the one buffer of max(input, output) elements.
    const auto one = std::max(input_elements(c.id, 10, 4), output_elements(c.id, 10, 4));
    EXPECT_LE(in_place_send_offset(c.id, 10, 3) + input_elements(c.id, 10, 4), one) << c.name;
    EXPECT_LE(in_place_recv_offset(c.id, 10, 3) + output_elements(c.id, 10, 4), one) << c.name;
  }
  EXPECT_FALSE(in_place_defined(Collective::alltoall));
  EXPECT_FALSE(in_place_defined(Collective::sendrecv));
  EXPECT_TRUE(in_place_defined(Collective::all_gather));
}

}  // namespace
}  // namespace mlbench::net
