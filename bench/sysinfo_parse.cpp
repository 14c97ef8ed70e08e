#include "bench/sysinfo_parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <sstream>

#include "base/utf8.hpp"

namespace mlbench {
namespace sysparse {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool starts_with_digits(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(prefix.size()), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

int suffix_number(std::string_view s, std::string_view prefix) {
  return parse_number<int>(s.substr(prefix.size())).value_or(-1);
}

std::map<std::string, std::string> parse_key_values(std::string_view text, char sep) {
  std::map<std::string, std::string> kv;
  for (const auto& line : split_lines(text)) {
    auto pos = line.find(sep);
    if (pos == std::string::npos) continue;
    std::string key(trim(std::string_view(line).substr(0, pos)));
    std::string value(trim(std::string_view(line).substr(pos + 1)));
    kv.emplace(std::move(key), std::move(value));
  }
  return kv;
}

std::optional<std::uint64_t> parse_kb(const std::string& value) {
  auto words = split_words(value);
  if (words.empty()) return std::nullopt;
  auto n = parse_number<std::uint64_t>(words[0]);
  if (!n) return std::nullopt;
  return words.size() > 1 && words[1] == "kB" ? *n * 1024 : *n;
}

}  // namespace sysparse

using namespace sysparse;
using Json = nlohmann::json;

std::optional<double> pcie_bandwidth(double gts, int width) {
  struct Rate {
    double gts;
    double efficiency;  // payload bits per transferred bit
  };
  static constexpr std::array<Rate, 6> kRates{{
      {2.5, 8.0 / 10.0},      // Gen1
      {5.0, 8.0 / 10.0},      // Gen2
      {8.0, 128.0 / 130.0},   // Gen3
      {16.0, 128.0 / 130.0},  // Gen4
      {32.0, 128.0 / 130.0},  // Gen5
      {64.0, 242.0 / 256.0},  // Gen6 FLIT mode (PAM4)
  }};
  if (width <= 0) return std::nullopt;
  for (const auto& r : kRates) {
    if (std::abs(r.gts - gts) < 1e-6) return r.gts * 1e9 * r.efficiency * width / 8.0;
  }
  return std::nullopt;
}

std::optional<double> parse_pcie_speed(std::string_view text) {
  auto words = split_words(text);
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  auto v = parse_number<double>(words[0]);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  // Far above any kernel's NR_CPUS (8192): a larger list is garbage, and expanding it would exhaust memory.
  constexpr int kMaxCpus = 1 << 16;
  std::vector<int> out;
  text = trim(text);
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto dash = item.find('-');
    auto lo = parse_number<int>(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_number<int>(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *lo < 0 || *hi >= kMaxCpus || std::ssize(out) + (*hi - *lo) >= kMaxCpus) {
      return {};
    }
    for (int c = *lo; c <= *hi; ++c) out.push_back(c);
  }
  return out;
}

std::map<int, std::uint64_t> parse_interrupt_counts(std::string_view text) {
  std::map<int, std::uint64_t> out;
  for (const auto& line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto name = trim(std::string_view(line).substr(0, colon));
    auto irq = starts_with_digits(name, "") ? parse_number<int>(name) : std::nullopt;
    if (!irq) continue;
    std::uint64_t sum = 0;
    // The CPU columns, up to the first word (the interrupt controller).
    for (const auto& w : split_words(std::string_view(line).substr(colon + 1))) {
      auto n = starts_with_digits(w, "") ? parse_number<std::uint64_t>(w) : std::nullopt;
      if (!n) break;
      sum += *n;
    }
    out[*irq] = sum;
  }
  return out;
}

std::optional<std::uint64_t> parse_smaps_anon_huge(std::string_view smaps, std::uint64_t addr) {
  bool inside = false;
  for (const auto& line : split_lines(smaps)) {
    auto words = split_words(line);
    if (words.empty()) continue;
    const std::string_view first = words[0];
    if (first.back() != ':') {  // a mapping's header: "start-end perms offset dev inode [name]", hex bounds
      auto dash = first.find('-');
      std::uint64_t lo = 0, hi = 0;
      auto hex = [](std::string_view t, std::uint64_t& v) {
        auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 16);
        return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
      };
      inside = dash != std::string_view::npos && hex(first.substr(0, dash), lo) &&
               hex(first.substr(dash + 1), hi) && lo <= addr && addr < hi;
    } else if (inside && first == "AnonHugePages:") {
      return parse_kb(std::string(std::string_view(line).substr(line.find(':') + 1)));
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::uint64_t mult = 1;
  switch (text.back()) {
    case 'K':
      mult = 1024;
      break;
    case 'M':
      mult = 1024 * 1024;
      break;
    case 'G':
      mult = 1024ULL * 1024 * 1024;
      break;
    default:
      break;
  }
  if (mult != 1) text.remove_suffix(1);
  auto v = parse_number<std::uint64_t>(text);
  if (!v) return std::nullopt;
  return *v * mult;
}

Json parse_smbios_memory_devices(std::string_view table) {
  // SMBIOS 3.x, type 17 "Memory Device" offsets.
  constexpr std::size_t kSize = 0x0C, kLocator = 0x10, kType = 0x12, kSpeed = 0x15, kExtSize = 0x1C,
                        kConfSpeed = 0x20, kExtSpeed = 0x54, kExtConfSpeed = 0x58;
  static const std::map<int, std::string> kMemoryTypes{
      {0x12, "DDR"},    {0x13, "DDR2"},   {0x18, "DDR3"},   {0x1A, "DDR4"}, {0x1B, "LPDDR"},
      {0x1C, "LPDDR2"}, {0x1D, "LPDDR3"}, {0x1E, "LPDDR4"}, {0x20, "HBM"},  {0x21, "HBM2"},
      {0x22, "DDR5"},   {0x23, "LPDDR5"}, {0x24, "HBM3"}};
  auto u8 = [&](std::size_t at) { return static_cast<std::uint8_t>(table[at]); };
  auto u16 = [&](std::size_t at) { return static_cast<std::uint32_t>(u8(at) | (u8(at + 1) << 8)); };
  auto u32 = [&](std::size_t at) { return u16(at) | (u16(at + 2) << 16); };

  Json out = Json::array();
  std::size_t pos = 0;
  while (pos + 4 <= table.size()) {
    std::uint8_t type = u8(pos);
    std::size_t len = u8(pos + 1);
    if (len < 4 || pos + len > table.size()) break;
    // The formatted area is followed by NUL-terminated strings and one extra NUL.
    std::vector<std::string> strings;
    std::size_t s = pos + len;
    while (s < table.size() && table[s] != '\0') {
      auto end = table.find('\0', s);
      if (end == std::string_view::npos) end = table.size();
      strings.emplace_back(table.substr(s, end - s));
      s = end + 1;
    }
    std::size_t next = (strings.empty() ? s + 2 : s + 1);
    auto str = [&](std::size_t at) -> std::optional<std::string> {
      std::size_t i = at < len ? u8(pos + at) : 0;
      if (i == 0 || i > strings.size()) return std::nullopt;
      return to_valid_utf8(trim(strings[i - 1]));
    };
    if (type == 127) break;
    if (type == 17 && len > kSpeed + 1) {
      std::uint64_t size = 0;
      std::uint32_t raw = u16(pos + kSize);
      if (raw == 0x7FFF && len >= kExtSize + 4) {
        size = static_cast<std::uint64_t>(u32(pos + kExtSize) & 0x7FFFFFFFu) << 20;
      } else if (raw != 0 && raw != 0xFFFF) {
        size = (raw & 0x8000u) != 0 ? static_cast<std::uint64_t>(raw & 0x7FFFu) << 10
                                    : static_cast<std::uint64_t>(raw) << 20;
      }
      if (size > 0) {
        Json d{{"size_bytes", size}};
        if (auto loc = str(kLocator)) d["locator"] = *loc;
        auto it = kMemoryTypes.find(u8(pos + kType));
        if (it != kMemoryTypes.end()) d["type"] = it->second;
        std::uint32_t speed = 0;
        if (len >= kConfSpeed + 2) speed = u16(pos + kConfSpeed);
        if (speed == 0xFFFF && len >= kExtConfSpeed + 4) speed = u32(pos + kExtConfSpeed);
        if (speed == 0 || speed == 0xFFFF) {
          speed = u16(pos + kSpeed);
          if (speed == 0xFFFF && len >= kExtSpeed + 4) speed = u32(pos + kExtSpeed);
        }
        if (speed != 0 && speed != 0xFFFF) d["speed_mts"] = speed;
        out.push_back(std::move(d));
      }
    }
    pos = next;
  }
  return out;
}

std::vector<MdstatArray> parse_mdstat(std::string_view text) {
  std::vector<MdstatArray> out;
  for (const auto& line : split_lines(text)) {
    auto words = split_words(line);
    if (words.size() < 3 || words[1] != ":" || words[0].rfind("md", 0) != 0) continue;
    MdstatArray a{.name = words[0], .line = line};
    if (words.size() > 3) a.state = words[2];
    for (std::size_t i = 3; i < words.size(); ++i) {
      const auto& w = words[i];
      auto bracket = w.find('[');
      if (bracket == std::string::npos) {
        if (w.rfind("raid", 0) == 0 || w == "linear") a.level = w;
        continue;
      }
      a.members.push_back(w.substr(0, bracket));
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  for (const auto& line : split_lines(text)) {
    // id parent MAJ:MIN root mount-point options [optional fields...] - fstype source super-options
    auto words = split_words(line);
    auto sep = std::find(words.begin(), words.end(), "-");
    if (sep - words.begin() < 6 || words.end() - sep < 3) continue;
    out.push_back({words[2], words[4], *(sep + 2)});
  }
  return out;
}

}  // namespace mlbench
