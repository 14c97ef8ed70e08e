// fmt::format with its argument count checked at compile time, for all of mlbench's code.
//
// fmt 9 (Debian 12) checks a format string against its arguments at compile time in C++20, but only that each
// replacement field has an argument of a fitting type: an argument no field uses is silently dropped, and the
// text then shows the wrong numbers in the wrong places (a sizing line with 3 fields for 4 arguments printed
// "with 21.0 % exposed gradient sync = 0"). This header declares mlbench::fmt: within namespace mlbench, the
// name `fmt::format` finds this format() first (a nested namespace hides the global one), and every other fmt
// name (fmt::join, ...) comes through the using-directive from ::fmt. The format string is parsed in a
// consteval constructor that also runs fmt's own check; a count that differs from the arguments' is a
// compile error naming format_string_and_arguments_differ_in_count. The build force-includes this header
// into every C++ file (CMakeLists.txt), so no call can miss it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace mlbench {
namespace fmt {
using namespace ::fmt;

namespace format_detail {

// Reached only in a constant evaluation whose check failed: calling a non-constexpr function there is the
// compile error, and its name is the message.
inline void format_string_and_arguments_differ_in_count() {}
inline void format_string_mixes_automatic_and_manual_argument_ids() {}

// The number of arguments a format string consumes: automatic fields ("{}", "{:>8}") one each, nested width
// or precision fields ("{:{}}", "{:.{}f}") too; with manual ids ("{0} {1} {0}") the highest id + 1. Named
// fields are not used in mlbench (fmt rejects them at compile time without named arguments).
consteval std::size_t arguments_used(std::string_view s) {
  std::size_t automatic = 0, manual = 0;
  bool any_manual = false;
  auto field_id = [&](std::size_t& i) {  // at the character after '{'
    if (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      std::size_t id = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        id = id * 10 + static_cast<std::size_t>(s[i++] - '0');
      any_manual = true;
      if (id + 1 > manual) manual = id + 1;
    } else {
      ++automatic;
    }
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '{') continue;
    if (i + 1 < s.size() && s[i + 1] == '{') {  // "{{" is a literal brace
      ++i;
      continue;
    }
    ++i;
    field_id(i);
    // The rest of the field up to its closing brace; a '{' inside the spec opens a nested field.
    for (; i < s.size() && s[i] != '}'; ++i) {
      if (s[i] == '{') {
        ++i;
        field_id(i);
        while (i < s.size() && s[i] != '}') ++i;
      }
    }
  }
  if (any_manual && automatic > 0) format_string_mixes_automatic_and_manual_argument_ids();
  return any_manual ? manual : automatic;
}

template <typename... T>
struct checked_format_string {
  ::fmt::format_string<T...> str;
  template <typename S>
  requires std::is_convertible_v<const S&, std::string_view>
  consteval checked_format_string(const S& s) : str(s) {  // NOLINT: implicit, as fmt's own
    if (arguments_used(std::string_view(s)) != sizeof...(T)) format_string_and_arguments_differ_in_count();
  }
};

}  // namespace format_detail

template <typename... T>
std::string format(format_detail::checked_format_string<std::type_identity_t<T>...> s, T&&... args) {
  return ::fmt::format(s.str, std::forward<T>(args)...);
}

}  // namespace fmt
}  // namespace mlbench
