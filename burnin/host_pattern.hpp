// The burn-in's host memory pattern test, the part that needs no threads or clock: what each pass writes, the
// check of a buffer against it, and how much memory the test takes.
//
// Method (memtest86's moving inversions and address tests, one pattern per pass in turn): pass p writes
//   address          word at address a = storage::pattern_word(mix64(seed + p), a / 8), the storage
//                    pattern's function of the word's address: full entropy, different in every pass, and a
//                    word that lands at the wrong address (an address-line fault) reads back wrong;
//   walking ones     word i of the buffer = 1 << ((i + p) mod 64): a single set bit marching across the bus;
//   walking zeros    its complement: a single clear bit;
//   address inverse  the complement of the address pattern, so that every cell holds both values over passes.
// Every word written is read back and compared; a bad word is reported with its (virtual) address, the value
// expected and the value read, the lowest addresses first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/names.hpp"
#include "report/report.hpp"

namespace mlbench::burnin {

enum class HostPattern { address, walking_ones, walking_zeros, address_inverse };
inline constexpr EnumName<HostPattern> kHostPatternNames[] = {
    {HostPattern::address, "address"},
    {HostPattern::walking_ones, "walking-ones"},
    {HostPattern::walking_zeros, "walking-zeros"},
    {HostPattern::address_inverse, "address-inverse"}};
static_assert(names_cover(kHostPatternNames));
inline std::string_view to_string(HostPattern p) { return name_of(kHostPatternNames, p); }

// What one pass writes: pass p runs pattern p mod 4 (the order of kHostPatternNames).
struct PatternPass {
  HostPattern pattern = HostPattern::address;
  std::uint64_t pass = 0;
  std::uint64_t address_seed = 0;  // of the address patterns: mix64(seed + pass)
};
PatternPass pattern_pass(std::uint64_t seed, std::uint64_t pass);

// The value of the word numbered `index` (from the buffer's start) lying at `address` in pass `p`.
std::uint64_t expected_word(const PatternPass& p, std::uint64_t index, std::uintptr_t address);

// Writes the pattern into `words`, whose first word is number `first_index` of the buffer.
void fill_words(std::span<std::uint64_t> words, std::uint64_t first_index, const PatternPass& p);

inline constexpr std::size_t kKeptBadWords = 16;

struct BadWord {
  std::uintptr_t address = 0;
  std::uint64_t expected = 0, actual = 0;
};
// {address, expected, actual}, each a hex string ("0x7f3a00001000"): 64-bit values do not survive a JSON
// reader's doubles.
Json to_json(const BadWord& b);

// What a check found: words compared, words that differ, and the lowest-addressed kKeptBadWords of those.
struct WordCheck {
  std::uint64_t checked = 0, bad = 0;
  std::vector<BadWord> first;
  void merge(const WordCheck& other);
};

// Compares `words` (first word number `first_index`) with the pattern, adding to `into`.
void check_words(std::span<const std::uint64_t> words, std::uint64_t first_index, const PatternPass& p,
                 WordCheck& into);

// The least memory worth testing, and what the test leaves to the rest of the node.
inline constexpr std::uint64_t kMinHostTestBytes = 64ull << 20;
inline constexpr std::uint64_t kHostReserveBytes = 1ull << 30;
// Bytes the host memory test takes: `fraction` of MemAvailable, capped so that kHostReserveBytes stay
// available, rounded down to 2 MiB (a transparent huge page, so no page is first-touched by two threads).
std::uint64_t host_test_bytes(double fraction, std::uint64_t available);

}  // namespace mlbench::burnin
