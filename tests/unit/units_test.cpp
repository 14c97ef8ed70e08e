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

// Tables show sizes as users type them (4k, not 4096), with the suffixes parse_size takes.
TEST(Units, SizesAreShownWithTheSuffixesTheParserTakes) {
  EXPECT_EQ(format_size(4096), "4k");
  EXPECT_EQ(format_size(131072), "128k");
  EXPECT_EQ(format_size(1 << 20), "1M");
  EXPECT_EQ(format_size(1536.0 * 1024), "1.5M");
  EXPECT_EQ(format_size(1025.0 * 1024), "1025k") << "exact at a smaller suffix beats a rounded larger one";
  EXPECT_EQ(format_size(1.2 * 1073741824.0 + 0.2), "1.2G")
      << "three significant digits when no suffix is exact";
  EXPECT_EQ(format_size(1099511627776.0 * 2), "2T");
  EXPECT_EQ(format_size(512), "512");
  EXPECT_EQ(format_size(4097), "4097") << "a small size that no suffix gives exactly stays in bytes";
  for (double exact : {4096.0, 131072.0, 1536.0 * 1024, 1025.0 * 1024, 2147483648.0, 512.0})
    EXPECT_EQ(static_cast<double>(parse_size(format_size(exact), "--bs")), exact) << format_size(exact);
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

// Counts and rates take decimal multiples, the way parameters, tokens and IOPS are spoken of.
TEST(Units, CountsAreDecimalMultiples) {
  EXPECT_DOUBLE_EQ(parse_count("100k", "tokens"), 100e3);
  EXPECT_DOUBLE_EQ(parse_count("13B", "params"), 13e9);
  EXPECT_DOUBLE_EQ(parse_count("13b", "params"), 13e9);
  EXPECT_DOUBLE_EQ(parse_count("1T", "tokens"), 1e12);
  EXPECT_DOUBLE_EQ(parse_count("1.5M", "tokens"), 1.5e6);
  EXPECT_DOUBLE_EQ(parse_count("2G", "x"), 2e9);
  EXPECT_DOUBLE_EQ(parse_count("3P", "x"), 3e15);
  EXPECT_DOUBLE_EQ(parse_count("42", "x"), 42);
  for (const char* bad : {"", "k", "-1k", "4x", "4kk", "1ki"}) {
    try {
      parse_count(bad, "tokens");
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("tokens: ", 0), 0u) << e.what();
    }
  }
}

// A file's value is read by its unit: the one grammar of the flags.
TEST(Units, QuantitiesByUnit) {
  EXPECT_DOUBLE_EQ(parse_quantity("2ms", "s", "max"), 0.002);
  EXPECT_DOUBLE_EQ(parse_quantity("250us", "s", "max"), 250e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("4k", "B", "min"), 4096);
  EXPECT_DOUBLE_EQ(parse_quantity("700k", "1/s", "min"), 700e3);
  EXPECT_DOUBLE_EQ(parse_quantity("5.5G", "B/s", "min"), 5.5e9);
  EXPECT_DOUBLE_EQ(parse_quantity("692T", "FLOP/s", "min"), 692e12);
  EXPECT_DOUBLE_EQ(parse_quantity("13B", "", "params"), 13e9);
  EXPECT_THROW(parse_quantity("4q", "B", "min"), UsageError);
}

TEST(Units, Formatting) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(format_rate(4.3e12, "B/s"), "4.3 TB/s");
  EXPECT_EQ(format_rate(812e12, "FLOP/s"), "812 TFLOP/s");
  EXPECT_EQ(format_rate(950, "1/s"), "950 1/s");
}

// Three significant digits never read as an exponent: a value that rounds up to the next prefix takes it, and
// a binary one from 1000 to 1023 of a prefix is written whole (fio's 1000MiB/s).
TEST(Units, RatesNearAPrefixStepReadAsNumbers) {
  EXPECT_EQ(format_rate(999.7e6, "B/s"), "1 GB/s");
  EXPECT_EQ(format_rate(999.4e6, "B/s"), "999 MB/s");
  EXPECT_EQ(format_rate(1000.0 * 1024 * 1024, "B/s", UnitBase::binary), "1000 MiB/s");
  EXPECT_EQ(format_rate(1023.9 * 1024 * 1024, "B/s", UnitBase::binary), "1 GiB/s");
  EXPECT_EQ(format_rate(1024.0 * 1024 * 1024, "B/s", UnitBase::binary), "1 GiB/s");
  EXPECT_EQ(format_rate(11.7 * 1024 * 1024, "B/s", UnitBase::binary), "11.7 MiB/s");
}

}  // namespace mlbench
