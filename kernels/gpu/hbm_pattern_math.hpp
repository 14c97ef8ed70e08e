// The burn-in's HBM pattern test, the part both sides compute: which 64-bit word each pass writes where, and
// how a word read back is judged and recorded. The kernels (hbm_pattern.cu) and the CPU tests
// (tests/gpu/hbm_pattern_test.cpp) call these same functions (MLBENCH_HD), so the expected words cannot
// drift between the device and the tests.
//
// Method (memtest86's and DCGM memtest's patterns, on 64-bit words): a pass writes one pattern over the whole
// tested region, then reads every word back and compares it with the pattern. Five patterns in turn:
//   address          the word's byte offset in the region (each word holds its own address: a word written
//                    to or read from the wrong place shows, the classic address-line test)
//   address_inverse  its complement (every bit of the address test flipped)
//   walking_ones     one set bit, at (word + shift) mod 64: neighbouring words differ in which bit is set
//   walking_zeros    its complement: one clear bit
//   random           a splitmix64 hash of the word index and the seed (kinds.hpp pattern_word): full-entropy
//                    data, the data-dependent faults the regular patterns miss
// Pass p runs pattern p mod 5 with shift p / 5, so the walking bits move on by one each round of five.
#pragma once

#include <cstdint>

#include "kernels/gpu/hd.hpp"
#include "kernels/gpu/kinds.hpp"

namespace mlbench::gpu {

enum class HbmPattern : std::uint32_t { address, address_inverse, walking_ones, walking_zeros, random };
inline constexpr std::uint32_t kHbmPatternCount = 5;

// What one pass writes: the pattern, the walking bits' shift and the random pattern's seed.
struct HbmPass {
  HbmPattern pattern = HbmPattern::address;
  std::uint32_t shift = 0;
  std::uint64_t seed = 0;
};

MLBENCH_HD inline HbmPass hbm_pass(std::uint64_t index, std::uint64_t seed) {
  return HbmPass{static_cast<HbmPattern>(index % kHbmPatternCount),
                 static_cast<std::uint32_t>(index / kHbmPatternCount % 64), seed + index};
}

// The word pass `p` writes at word `word` of the region (word w is bytes [8w, 8w + 8) of it).
MLBENCH_HD inline std::uint64_t hbm_pattern_word(const HbmPass& p, std::uint64_t word) {
  switch (p.pattern) {
    case HbmPattern::address:
      return word * 8;
    case HbmPattern::address_inverse:
      return ~(word * 8);
    case HbmPattern::walking_ones:
      return std::uint64_t{1} << ((word + p.shift) & 63);
    case HbmPattern::walking_zeros:
      return ~(std::uint64_t{1} << ((word + p.shift) & 63));
    case HbmPattern::random:
      return pattern_word(word, p.seed);
  }
  return 0;
}

// A word that read back wrong: its device address and both values.
struct HbmBadWord {
  std::uint64_t address = 0, expected = 0, actual = 0;
};
inline constexpr std::uint32_t kHbmRecordedBadWords = 16;

// The check's device-side tally (zeroed before each check): every bad word counted, the first
// kHbmRecordedBadWords recorded in the order the threads found them.
struct HbmPatternCounters {
  unsigned long long bad_words = 0;
  std::uint32_t claimed = 0;  // slots claimed so far, may exceed kHbmRecordedBadWords
  std::uint32_t unused = 0;
  HbmBadWord first[kHbmRecordedBadWords];
};

// A slot in `counters.first`: atomicAdd on the device, a plain increment in the single-threaded host tests.
MLBENCH_HD inline std::uint32_t hbm_claim_slot(HbmPatternCounters* counters) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(&counters->claimed, 1u);
#else
  return counters->claimed++;
#endif
}

// 1 when `actual`, read from word `word` of the region at device address `address`, is not what pass `p`
// wrote there (recorded in `counters` while slots are left), else 0. The caller adds the ones up into
// counters->bad_words (the kernel: one atomicAdd per thread).
MLBENCH_HD inline unsigned hbm_check_word(const HbmPass& p, std::uint64_t word, std::uint64_t address,
                                          std::uint64_t actual, HbmPatternCounters* counters) {
  const std::uint64_t expected = hbm_pattern_word(p, word);
  if (actual == expected) return 0;
  const std::uint32_t slot = hbm_claim_slot(counters);
  if (slot < kHbmRecordedBadWords) counters->first[slot] = HbmBadWord{address, expected, actual};
  return 1;
}

}  // namespace mlbench::gpu
