#include "base/utf8.hpp"

#include <string>

#include <gtest/gtest.h>

namespace mlbench {
namespace {

TEST(Utf8, WellFormedTextPasses) {
  EXPECT_EQ(invalid_utf8_at(""), std::string::npos);
  EXPECT_EQ(invalid_utf8_at("Xeon Gold 6430"), std::string::npos);
  EXPECT_EQ(invalid_utf8_at("µs ≥ 5 % \xF0\x9F\x9A\x80"), std::string::npos);  // 2-, 3- and 4-byte sequences
  EXPECT_EQ(invalid_utf8_at(std::string("a\0b", 3)), std::string::npos);
}

TEST(Utf8, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(invalid_utf8_at("ab\xFF"), 2u);
  EXPECT_EQ(invalid_utf8_at("\xC3"), 0u);              // truncated sequence
  EXPECT_EQ(invalid_utf8_at("x\xC0\xAF"), 1u);         // overlong "/"
  EXPECT_EQ(invalid_utf8_at("\xE0\x80\xAF"), 0u);      // overlong 3-byte form
  EXPECT_EQ(invalid_utf8_at("\xED\xA0\x80"), 0u);      // UTF-16 surrogate
  EXPECT_EQ(invalid_utf8_at("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(invalid_utf8_at("\x80"), 0u);              // lone continuation byte
}

TEST(Utf8, RepairReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(to_valid_utf8("Xeon \xFF\xFE µ"), "Xeon \xEF\xBF\xBD\xEF\xBF\xBD µ");
  EXPECT_EQ(to_valid_utf8("plain"), "plain");
  EXPECT_EQ(invalid_utf8_at(to_valid_utf8("\xC3\x28\xE2\x82")), std::string::npos);
}

}  // namespace
}  // namespace mlbench
