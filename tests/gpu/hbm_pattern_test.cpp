// The HBM pattern test's math on the host (kernels/gpu/hbm_pattern_math.hpp): the words each pattern puts at
// each address, the pass sequence, and the per-word check the kernel runs — a wrong word counted and recorded
// with its address and both values, and only the first kHbmRecordedBadWords recorded while every one counts.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "kernels/gpu/hbm_pattern_math.hpp"

namespace mlbench::gpu {
namespace {

TEST(HbmPattern, AddressPatternsHoldEachWordsOwnOffset) {
  const HbmPass address{HbmPattern::address, 0, 7}, inverse{HbmPattern::address_inverse, 0, 7};
  EXPECT_EQ(hbm_pattern_word(address, 0), 0u);
  EXPECT_EQ(hbm_pattern_word(address, 1), 8u);
  EXPECT_EQ(hbm_pattern_word(address, 1ull << 34), 1ull << 37);  // 128 GiB into the region
  EXPECT_EQ(hbm_pattern_word(inverse, 0), ~0ull);
  EXPECT_EQ(hbm_pattern_word(inverse, 5), ~40ull);
}

TEST(HbmPattern, WalkingPatternsMoveOneBitAlongTheWordsAndThePasses) {
  const HbmPass ones{HbmPattern::walking_ones, 0, 0}, zeros{HbmPattern::walking_zeros, 0, 0};
  for (std::uint64_t w = 0; w < 130; ++w) {
    EXPECT_EQ(std::popcount(hbm_pattern_word(ones, w)), 1);
    EXPECT_EQ(hbm_pattern_word(ones, w), 1ull << (w % 64));
    EXPECT_EQ(hbm_pattern_word(zeros, w), ~hbm_pattern_word(ones, w));
  }
  const HbmPass shifted{HbmPattern::walking_ones, 3, 0};
  EXPECT_EQ(hbm_pattern_word(shifted, 0), 1ull << 3);
  EXPECT_EQ(hbm_pattern_word(shifted, 61), 1ull << 0);  // wraps at 64
}

TEST(HbmPattern, RandomPatternIsTheSeededHashOfTheWord) {
  const HbmPass a{HbmPattern::random, 0, 11}, b{HbmPattern::random, 0, 12};
  EXPECT_EQ(hbm_pattern_word(a, 42), pattern_word(42, 11));
  EXPECT_NE(hbm_pattern_word(a, 42), hbm_pattern_word(b, 42));
}

TEST(HbmPattern, PassesCycleThroughEveryPatternThenShiftTheWalkingBit) {
  for (std::uint64_t p = 0; p < kHbmPatternCount; ++p) {
    EXPECT_EQ(static_cast<std::uint64_t>(hbm_pass(p, 1).pattern), p);
    EXPECT_EQ(hbm_pass(p, 1).shift, 0u);
  }
  EXPECT_EQ(hbm_pass(kHbmPatternCount + 2, 1).pattern, HbmPattern::walking_ones);
  EXPECT_EQ(hbm_pass(kHbmPatternCount + 2, 1).shift, 1u);
  EXPECT_NE(hbm_pass(4, 1).seed, hbm_pass(9, 1).seed);  // each random pass writes other data
}

// What the check kernel does over one chunk, on the host: every word through hbm_check_word.
HbmPatternCounters check(const std::vector<std::uint64_t>& data, std::uint64_t first_word, const HbmPass& p) {
  HbmPatternCounters c;
  for (std::size_t i = 0; i < data.size(); ++i) {
    c.bad_words += hbm_check_word(p, first_word + i, 0x1000 + 8 * i, data[i], &c);
  }
  return c;
}

TEST(HbmPattern, CheckCountsAndRecordsAWrongWord) {
  const HbmPass p = hbm_pass(0, 1);  // address
  std::vector<std::uint64_t> data(1024);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = hbm_pattern_word(p, 4096 + i);
  EXPECT_EQ(check(data, 4096, p).bad_words, 0u);

  data[100] ^= 1ull << 17;  // one flipped bit
  const auto c = check(data, 4096, p);
  EXPECT_EQ(c.bad_words, 1u);
  ASSERT_EQ(c.claimed, 1u);
  EXPECT_EQ(c.first[0].address, 0x1000u + 800);
  EXPECT_EQ(c.first[0].expected, (4096u + 100) * 8);
  EXPECT_EQ(c.first[0].actual, ((4096u + 100) * 8) ^ (1ull << 17));
  // The same data read as if it started elsewhere in the region is wrong everywhere.
  EXPECT_EQ(check(data, 0, p).bad_words, data.size());
}

TEST(HbmPattern, EveryBadWordCountsButOnlyTheFirstAreRecorded) {
  const HbmPass p = hbm_pass(2, 1);         // walking ones
  std::vector<std::uint64_t> data(200, 0);  // all zero: every word wrong
  const auto c = check(data, 0, p);
  EXPECT_EQ(c.bad_words, 200u);
  EXPECT_EQ(c.claimed, 200u);
  EXPECT_EQ(c.first[kHbmRecordedBadWords - 1].address, 0x1000u + 8 * (kHbmRecordedBadWords - 1));
  EXPECT_EQ(c.first[kHbmRecordedBadWords - 1].expected, 1ull << (kHbmRecordedBadWords - 1));
}

}  // namespace
}  // namespace mlbench::gpu
