// An enum's names, written once: one constexpr table of {value, "name"} rows gives both directions.
//
//   inline constexpr EnumName<Launcher> kLauncherNames[] = {{Launcher::none, "none"}, ...};
//   static_assert(names_cover(kLauncherNames));
//   std::string_view to_string(Launcher l) { return name_of(kLauncherNames, l); }
//   Launcher l = parse_name(kLauncherNames, text, "--launcher: unknown launcher");
//
// A table lists every value of its enum once, in declaration order: names_cover() checks that at compile time
// for enums numbered 0, 1, 2, ... (all of mlbench's), so a table that misses a value or repeats a name does
// not build. The tables sit in headers beside their enum, so option parsers, help text and tests read the
// same rows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

// True when row i holds the value numbered i and every name is non-empty and distinct.
template <class E, std::size_t N>
constexpr bool names_cover(const EnumName<E> (&table)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::underlying_type_t<E>>(table[i].value) != static_cast<std::underlying_type_t<E>>(i))
      return false;
    if (table[i].name.empty()) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (table[j].name == table[i].name) return false;
    }
  }
  return true;
}

// The name of `value`; a value outside the table (only a cast can make one) has the name "?".
template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumName<E> (&table)[N], E value) {
  for (const auto& row : table) {
    if (row.value == value) return row.name;
  }
  return "?";
}

// The value called `name`, if one is.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& row : table) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

// The names in table order as an English list: "a", "a or b", "a, b or c".
template <class E, std::size_t N>
std::string names_list(const EnumName<E> (&table)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += table[i].name;
  }
  return out;
}

// The value called `name`, or UsageError "<what> '<name>' (use a, b or c)"; `what` names the option the way
// the user gave it ("--rw: unknown mode", "unknown --format").
template <class E, std::size_t N>
E parse_name(const EnumName<E> (&table)[N], std::string_view name, std::string_view what) {
  if (auto v = value_of(table, name)) return *v;
  throw UsageError(fmt::format("{} '{}' (use {})", what, name, names_list(table)));
}

}  // namespace mlbench
