// The text rules of the rendezvous, in one place: what a word or a line of a message may hold (the launch
// environment's job id and token, the bootstrap's wire format, the cluster's messages), bytes as lowercase
// hex, and how several errors become one bounded line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace mlbench::net {

// The longest text a message carries in one field (a reason, an error line); a node name is shorter.
inline constexpr std::size_t kMaxText = 4096;

// A byte that a terminal shows as itself: ASCII from the space to '~'.
constexpr bool printable_char(char ch) { return ch >= ' ' && ch < 0x7f; }

// Printable ASCII, spaces included: one line of text.
inline bool printable_line(std::string_view text) {
  return std::all_of(text.begin(), text.end(), printable_char);
}

// Printable ASCII without space: one word of a line (a job id, a job token).
inline bool printable_word(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char ch) { return ch != ' ' && printable_char(ch); });
}

// Lowercase hex digits only (the empty text included).
inline bool lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); });
}

// `bytes` as lowercase hex, two digits a byte.
inline std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (unsigned char ch : bytes) out += fmt::format("{:02x}", ch);
  return out;
}

// `parts` joined with "; " in one line of at most max_bytes (which must exceed 64): the parts that fit, in
// order, then "; and N more" counting the others; a first part longer than the line is cut, ending in "...".
// So that many errors at once still make one line a message field (kMaxText) and a terminal take.
inline std::string join_bounded(const std::vector<std::string>& parts, std::size_t max_bytes) {
  constexpr std::size_t kTail = 32;  // "; and N more" for any N
  constexpr std::string_view kCut = "...";
  std::string out;
  std::size_t i = 0;
  for (; i < parts.size(); ++i) {
    const std::size_t separator = out.empty() ? 0 : 2;
    const std::size_t room = i + 1 < parts.size() ? max_bytes - kTail : max_bytes;
    if (out.size() + separator + parts[i].size() <= room) {
      if (separator != 0) out += "; ";
      out += parts[i];
      continue;
    }
    if (out.empty()) {
      out = parts[i].substr(0, room - kCut.size());
      out += kCut;
      ++i;
    }
    break;
  }
  if (i < parts.size()) out += fmt::format("; and {} more", parts.size() - i);
  return out;
}

}  // namespace mlbench::net
