// The data mlbench writes: full-entropy words that depend only on (seed, byte offset), so a read-back can be
// checked without storing what was written, and no device can compress or deduplicate it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace mlbench::storage {

// splitmix64's finalizer: a bijection with full avalanche, ~1 ns per word.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The pattern of `seed` at 64-bit word number `word` (byte offset / 8): what every fill and check below
// computes, and what the burn-in's host memory test writes at each address (burnin/host_pattern.hpp).
inline std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t word) {
  return mix64(seed ^ (word * 0xd1b54a32d192ed03ull));
}

// Fills `buf` with the pattern of `seed` as it lies at byte `offset` (both multiples of 8).
inline void fill_pattern(std::span<std::byte> buf, std::uint64_t seed, std::uint64_t offset) {
  std::uint64_t word = offset / 8;
  for (std::size_t i = 0; i + 8 <= buf.size(); i += 8, ++word) {
    std::uint64_t v = pattern_word(seed, word);
    std::memcpy(buf.data() + i, &v, 8);
  }
}

// Whether `buf` holds exactly the pattern of `seed` at `offset`.
inline bool matches_pattern(std::span<const std::byte> buf, std::uint64_t seed, std::uint64_t offset) {
  std::uint64_t word = offset / 8;
  for (std::size_t i = 0; i + 8 <= buf.size(); i += 8, ++word) {
    std::uint64_t v;
    std::memcpy(&v, buf.data() + i, 8);
    if (v != pattern_word(seed, word)) return false;
  }
  return true;
}

// Per-target seeds, so that identical offsets on two targets hold different data.
inline std::uint64_t target_seed(std::uint64_t seed, std::size_t target) {
  return mix64(seed + 0x632be59bd9b4e019ull * (target + 1));
}

}  // namespace mlbench::storage
