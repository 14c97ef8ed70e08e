// base/format.hpp: the argument count a format string uses, and that `fmt::format` in mlbench code is the
// checked one (the compile errors themselves are tests/unit/format_arity_mismatch.cpp, run by CTest).
#include <gtest/gtest.h>

#include <vector>

#include <fmt/ranges.h>

namespace mlbench {
namespace {

using fmt::format_detail::arguments_used;

static_assert(arguments_used("no fields") == 0);
static_assert(arguments_used("{} and {:>8.2f}") == 2);
static_assert(arguments_used("{{literal}} {} }}") == 1);
static_assert(arguments_used("{:{}} {:.{}f} {:>{}.{}}") == 7);  // nested width and precision take arguments
static_assert(arguments_used("{0} {1} {0}") == 2);
static_assert(arguments_used("{1}") == 2);

TEST(Format, TheCheckedFormatFormatsAsFmtDoes) {
  EXPECT_EQ(fmt::format("{} {:.1f} {:>{}} {}", 7, 2.5, "x", 3, fmt::join(std::vector<int>{1, 2}, ",")),
            "7 2.5   x 1,2");
  EXPECT_EQ(fmt::format("{{}} {1}{0}", 'a', 'b'), "{} ba");
}

TEST(Format, FmtFormatInMlbenchCodeIsTheCheckedOne) {
  // Within namespace mlbench the name finds mlbench::fmt::format; fmt's other names come through from ::fmt.
  EXPECT_EQ(&fmt::format<int>, &mlbench::fmt::format<int>);
  EXPECT_EQ(fmt::to_string(42), "42");
}

}  // namespace
}  // namespace mlbench
