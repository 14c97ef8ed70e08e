// The console summary: a result's warnings are printed under its row, and the table ends with their count.
#include "reports/summary.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace mlbench::test {
namespace {

Result result(const char* probe, std::vector<std::string> warnings) {
  Result r;
  r.probe = probe;
  r.add_metric("bandwidth", 1e10, "B/s");
  r.warnings = std::move(warnings);
  return r;
}

std::string summary_of(const Report& report) {
  std::ostringstream out;
  print_summary(out, report);
  return out.str();
}

TEST(Summary, WarningsAreUnderTheirRowAndCountedAtTheEnd) {
  Report report;
  report.results.push_back(result("host.membw", {"arrays smaller than the caches", "threads share CPUs"}));
  report.results.push_back(result("storage.io", {"--iodepth 4 acts as 1"}));
  const std::string text = summary_of(report);
  const auto membw = text.find("host.membw"), storage = text.find("storage.io");
  const auto caches = text.find("warning: arrays smaller than the caches");
  const auto share = text.find("warning: threads share CPUs"), iodepth = text.find("warning: --iodepth 4");
  ASSERT_NE(caches, std::string::npos) << text;
  ASSERT_NE(share, std::string::npos) << text;
  ASSERT_NE(iodepth, std::string::npos) << text;
  EXPECT_LT(membw, caches);
  EXPECT_LT(caches, share);
  EXPECT_LT(share, storage) << "a warning is under its own row, not the next one";
  EXPECT_LT(storage, iodepth);
  EXPECT_TRUE(text.ends_with("\n3 warnings, each under its result above\n")) << text;
}

TEST(Summary, NoWarningsNoCountLine) {
  Report report;
  report.results.push_back(result("host.membw", {}));
  const std::string text = summary_of(report);
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
}

}  // namespace
}  // namespace mlbench::test
