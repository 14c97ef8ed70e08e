#include <gtest/gtest.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace mlbench {

TEST(Units, SizesAreFioStyleBinaryMultiples) {
  EXPECT_EQ(parse_size("4096", "--bs"), 4096u);
  EXPECT_EQ(parse_size("4k", "--bs"), 4096u);
  EXPECT_EQ(parse_size("128K", "--bs"), 131072u);
  EXPECT_EQ(parse_size("1M", "--bs"), 1048576u);
  EXPECT_EQ(parse_size("2G", "--size"), 2147483648u);
  EXPECT_EQ(parse_size("1GiB", "--size"), 1073741824u);
  EXPECT_EQ(parse_size("1t", "--size"), 1099511627776u);
  EXPECT_EQ(parse_size("1.5k", "--size"), 1536u);
}

TEST(Units, BadSizesNameTheOption) {
  for (const char* bad : {"", "k", "-4k", "4x", "1.3", "abc", "4kk"}) {
    try {
      parse_size(bad, "--bs");
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--bs: ", 0), 0u) << e.what();
    }
  }
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("5", "--runtime"), 5);
  EXPECT_DOUBLE_EQ(parse_duration("5s", "--runtime"), 5);
  EXPECT_DOUBLE_EQ(parse_duration("2m", "--runtime"), 120);
  EXPECT_DOUBLE_EQ(parse_duration("250ms", "--runtime"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("1h", "--runtime"), 3600);
  EXPECT_THROW(parse_duration("5d", "--runtime"), UsageError);
  EXPECT_THROW(parse_duration("-1", "--runtime"), UsageError);
}

TEST(Units, Formatting) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(format_rate(4.3e12, "B/s"), "4.3 TB/s");
  EXPECT_EQ(format_rate(812e12, "FLOP/s"), "812 TFLOP/s");
  EXPECT_EQ(format_rate(950, "1/s"), "950 1/s");
}

}  // namespace mlbench
