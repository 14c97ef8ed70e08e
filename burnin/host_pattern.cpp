// The host memory test's patterns and check (burnin/host_pattern.hpp). The loops pick the pattern once, not
// per word, so a pass runs at memory speed: the address pattern costs one mix64 (~1 ns) per word.
#include "burnin/host_pattern.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "storage/pattern.hpp"

namespace mlbench::burnin {
namespace {

std::uintptr_t address_of(const std::uint64_t* w) { return reinterpret_cast<std::uintptr_t>(w); }

// Calls f(word_ptr, expected) for every word, with the pattern chosen outside the loop.
template <class Word, class F>
void for_each_word(std::span<Word> words, std::uint64_t first_index, const PatternPass& p, F&& f) {
  const std::uint64_t seed = p.address_seed;
  switch (p.pattern) {
    case HostPattern::address:
      for (auto& w : words) f(w, storage::pattern_word(seed, address_of(&w) / 8));
      break;
    case HostPattern::address_inverse:
      for (auto& w : words) f(w, ~storage::pattern_word(seed, address_of(&w) / 8));
      break;
    case HostPattern::walking_ones:
      for (std::size_t i = 0; i < words.size(); ++i)
        f(words[i], std::uint64_t{1} << ((first_index + i + p.pass) % 64));
      break;
    case HostPattern::walking_zeros:
      for (std::size_t i = 0; i < words.size(); ++i)
        f(words[i], ~(std::uint64_t{1} << ((first_index + i + p.pass) % 64)));
      break;
  }
}

}  // namespace

PatternPass pattern_pass(std::uint64_t seed, std::uint64_t pass) {
  return {static_cast<HostPattern>(pass % std::size(kHostPatternNames)), pass, storage::mix64(seed + pass)};
}

std::uint64_t expected_word(const PatternPass& p, std::uint64_t index, std::uintptr_t address) {
  switch (p.pattern) {
    case HostPattern::address:
      return storage::pattern_word(p.address_seed, address / 8);
    case HostPattern::address_inverse:
      return ~storage::pattern_word(p.address_seed, address / 8);
    case HostPattern::walking_ones:
      return std::uint64_t{1} << ((index + p.pass) % 64);
    case HostPattern::walking_zeros:
      return ~(std::uint64_t{1} << ((index + p.pass) % 64));
  }
  return 0;
}

void fill_words(std::span<std::uint64_t> words, std::uint64_t first_index, const PatternPass& p) {
  for_each_word(words, first_index, p, [](std::uint64_t& w, std::uint64_t v) { w = v; });
}

Json to_json(const BadWord& b) {
  return Json{{"address", fmt::format("{:#x}", b.address)},
              {"expected", fmt::format("{:#018x}", b.expected)},
              {"actual", fmt::format("{:#018x}", b.actual)}};
}

void WordCheck::merge(const WordCheck& other) {
  checked += other.checked;
  bad += other.bad;
  first.insert(first.end(), other.first.begin(), other.first.end());
  std::sort(first.begin(), first.end(),
            [](const BadWord& a, const BadWord& b) { return a.address < b.address; });
  if (first.size() > kKeptBadWords) first.resize(kKeptBadWords);
}

void check_words(std::span<const std::uint64_t> words, std::uint64_t first_index, const PatternPass& p,
                 WordCheck& into) {
  WordCheck found;
  for_each_word(words, first_index, p, [&found](const std::uint64_t& w, std::uint64_t v) {
    if (w == v) [[likely]]
      return;
    ++found.bad;
    // Words are visited in address order: the first ones found are the lowest.
    if (found.first.size() < kKeptBadWords) found.first.push_back({address_of(&w), v, w});
  });
  found.checked = words.size();
  into.merge(found);
}

std::uint64_t host_test_bytes(double fraction, std::uint64_t available) {
  constexpr std::uint64_t kRound = 2ull << 20;
  if (!(fraction > 0) || available <= kHostReserveBytes) return 0;
  const double share = std::floor(fraction * static_cast<double>(available));
  const std::uint64_t bytes = std::min(static_cast<std::uint64_t>(share), available - kHostReserveBytes);
  return bytes / kRound * kRound;
}

}  // namespace mlbench::burnin
