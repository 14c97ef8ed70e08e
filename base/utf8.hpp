// UTF-8 checks for text that ends up in JSON: nlohmann::json throws when it serialises a string that is not
// well-formed UTF-8, so bytes from files and from /sys are checked (or repaired) where they come in.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mlbench {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: shortest form, no surrogates, at most
// U+10FFFF), or 0 when s[i] does not start one.
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto tail = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return byte(k) >= lo && byte(k) <= hi;
  };
  unsigned b = byte(0);
  if (i >= s.size()) return 0;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return tail(1) ? 2 : 0;
  if (b == 0xE0) return tail(1, 0xA0) && tail(2) ? 3 : 0;
  if (b == 0xED) return tail(1, 0x80, 0x9F) && tail(2) ? 3 : 0;
  if (b >= 0xE1 && b <= 0xEF) return tail(1) && tail(2) ? 3 : 0;
  if (b == 0xF0) return tail(1, 0x90) && tail(2) && tail(3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return tail(1) && tail(2) && tail(3) ? 4 : 0;
  if (b == 0xF4) return tail(1, 0x80, 0x8F) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

// Offset of the first byte that does not start a well-formed sequence, or npos when all of `s` is UTF-8.
inline std::size_t invalid_utf8_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto n = utf8_sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

// `s` with every byte that does not start a well-formed sequence replaced by U+FFFD.
inline std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace mlbench
