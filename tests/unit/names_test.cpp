#include "base/names.hpp"

#include <string>

#include <gtest/gtest.h>

namespace mlbench {
namespace {

enum class Colour { red, green, blue };
constexpr EnumName<Colour> kColourNames[] = {
    {Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}};
static_assert(names_cover(kColourNames));
static_assert(name_of(kColourNames, Colour::green) == "green");
static_assert(value_of(kColourNames, "blue") == Colour::blue);

// Tables names_cover() refuses: a value out of order or missing, a repeated name, an empty name.
constexpr EnumName<Colour> kSwapped[] = {
    {Colour::green, "green"}, {Colour::red, "red"}, {Colour::blue, "blue"}};
constexpr EnumName<Colour> kRepeated[] = {
    {Colour::red, "red"}, {Colour::green, "red"}, {Colour::blue, "blue"}};
constexpr EnumName<Colour> kEmpty[] = {{Colour::red, "red"}, {Colour::green, ""}, {Colour::blue, "blue"}};
constexpr EnumName<Colour> kGap[] = {{Colour::red, "red"}, {Colour::blue, "blue"}};
static_assert(!names_cover(kSwapped));
static_assert(!names_cover(kRepeated));
static_assert(!names_cover(kEmpty));
static_assert(!names_cover(kGap));

TEST(Names, EveryValueRoundTrips) {
  for (const auto& row : kColourNames) {
    EXPECT_EQ(name_of(kColourNames, row.value), row.name);
    EXPECT_EQ(parse_name(kColourNames, row.name, "--colour: unknown colour"), row.value);
  }
}

TEST(Names, AValueOutsideTheTableIsAQuestionMark) {
  EXPECT_EQ(name_of(kColourNames, static_cast<Colour>(7)), "?");
}

TEST(Names, UnknownNameIsOneUsageErrorListingTheNames) {
  EXPECT_EQ(value_of(kColourNames, "Red"), std::nullopt);  // names are exact, case included
  try {
    parse_name(kColourNames, "purple", "--colour: unknown colour");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--colour: unknown colour 'purple' (use red, green or blue)");
  }
}

TEST(Names, ListsInTableOrderAsEnglish) {
  enum class One { only };
  enum class Two { a, b };
  constexpr EnumName<One> one[] = {{One::only, "only"}};
  constexpr EnumName<Two> two[] = {{Two::a, "a"}, {Two::b, "b"}};
  EXPECT_EQ(names_list(one), "only");
  EXPECT_EQ(names_list(two), "a or b");
  EXPECT_EQ(names_list(kColourNames), "red, green or blue");
}

}  // namespace
}  // namespace mlbench
