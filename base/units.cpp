#include "base/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench {
namespace {

// Splits "128k" into 128 and "k"; throws when there is no leading non-negative number.
std::pair<double, std::string> split_number(std::string_view text, std::string_view what) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, value);
  if (i == 0 || ec != std::errc() || ptr != text.data() + i || !std::isfinite(value)) {
    throw UsageError(
        fmt::format("{}: '{}' is not a valid number (examples: 4k, 128k, 1M, 2G, 5s, 2m)", what, text));
  }
  std::string suffix(text.substr(i));
  for (auto& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {value, suffix};
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  auto [value, suffix] = split_number(text, what);
  if (!suffix.empty() && suffix.back() == 'b') suffix.pop_back();
  if (!suffix.empty() && suffix.back() == 'i') suffix.pop_back();
  double mult = 1;
  if (suffix == "k") {
    mult = 1024.0;
  } else if (suffix == "m") {
    mult = 1024.0 * 1024;
  } else if (suffix == "g") {
    mult = 1024.0 * 1024 * 1024;
  } else if (suffix == "t") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else if (!suffix.empty()) {
    throw UsageError(
        fmt::format("{}: unknown size suffix in '{}' (use k, M, G or T: binary multiples)", what, text));
  }
  double bytes = value * mult;
  if (bytes >= 1.8e19 || bytes != std::floor(bytes)) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number of bytes", what, text));
  }
  return static_cast<std::uint64_t>(bytes);
}

double parse_duration(std::string_view text, std::string_view what) {
  auto [value, suffix] = split_number(text, what);
  if (suffix.empty() || suffix == "s") return value;
  if (suffix == "ms") return value / 1e3;
  if (suffix == "us") return value / 1e6;
  if (suffix == "m") return value * 60;
  if (suffix == "h") return value * 3600;
  throw UsageError(fmt::format("{}: unknown time suffix in '{}' (use us, ms, s, m or h)", what, text));
}

double parse_count(std::string_view text, std::string_view what) {
  auto [value, suffix] = split_number(text, what);
  static constexpr std::pair<const char*, double> kMultiples[] = {
      {"", 1}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1e9}, {"t", 1e12}, {"p", 1e15}};
  for (const auto& [name, mult] : kMultiples)
    if (suffix == name) return value * mult;
  throw UsageError(fmt::format(
      "{}: unknown count suffix in '{}' (use k, M, G or B, T, P: decimal multiples, e.g. 100k, 13B, 1T)",
      what, text));
}

double parse_quantity(std::string_view text, std::string_view unit, std::string_view what) {
  if (unit == "s") return parse_duration(text, what);
  if (unit == "B") return static_cast<double>(parse_size(text, what));
  return parse_count(text, what);
}

std::string format_size(double bytes) {
  static constexpr std::pair<double, const char*> kSuffixes[] = {
      {1099511627776.0, "T"}, {1073741824.0, "G"}, {1048576.0, "M"}, {1024.0, "k"}};
  // Exact when the largest suffix that gives a short number with at most one decimal does: "4k", "1.5M",
  // "1025k"; a size under 10000 bytes that none gives is plain bytes.
  for (const auto& [mult, suffix] : kSuffixes) {
    const double v = std::fabs(bytes) / mult;
    if (v >= 1 && v < 10000 && v * 10 == std::floor(v * 10)) return fmt::format("{}{}", bytes / mult, suffix);
  }
  if (std::fabs(bytes) < 10000) return fmt::format("{}", bytes);
  // Else three significant digits of the largest suffix it reaches: "1.2G", "12.3k", "123M".
  for (const auto& [mult, suffix] : kSuffixes) {
    const double v = bytes / mult;
    if (std::fabs(v) < 1) continue;
    return std::fabs(v) >= 1000 ? fmt::format("{:.0f}{}", v, suffix) : fmt::format("{:.3g}{}", v, suffix);
  }
  return fmt::format("{}", bytes);
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t u = 0;
  while (std::fabs(bytes) >= 1024 && u + 1 < kUnits.size()) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, kUnits[u]);
}

std::string format_rate(double value, std::string_view unit, UnitBase base) {
  static constexpr std::array<const char*, 6> kDecimal = {"", "k", "M", "G", "T", "P"};
  static constexpr std::array<const char*, 6> kBinary = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  const bool binary = base == UnitBase::binary;
  const double step = binary ? 1024 : 1000;
  std::size_t p = 0;
  while (std::fabs(value) >= step && p + 1 < kDecimal.size()) {
    value /= step;
    ++p;
  }
  // Three significant digits never as an exponent ("1e+03"): from 100 up the whole number, which a value
  // rounding to the step (999.7 M) gives to the next prefix (1 G); a binary 1000–1023 stays whole.
  if (std::fabs(value) >= 100) {
    if (std::fabs(std::round(value)) >= step && p + 1 < kDecimal.size()) {
      value /= step;
      ++p;
    } else {
      return fmt::format("{:.0f} {}{}", value, binary ? kBinary[p] : kDecimal[p], unit);
    }
  }
  return fmt::format("{:.3g} {}{}", value, binary ? kBinary[p] : kDecimal[p], unit);
}

}  // namespace mlbench
