#include <gtest/gtest.h>

#include "reports/compare.hpp"
#include "reports/table.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

Table sample() {
  return Table{
      "t",
      {"name", "value"},
      {{Cell{"a,b"}, Cell{"1", Tone::bad, true}}, {Cell{"say \"hi\""}, Cell{"22", Tone::plain, true}}}};
}

TEST(Writers, TextAlignsAndColoursOnlyWhenAsked) {
  EXPECT_EQ(to_text(sample(), false), "t\nname      value\na,b           1\nsay \"hi\"     22\n");
  std::string coloured = to_text(sample(), true);
  EXPECT_NE(coloured.find("\033[1;31m1\033[0m"), std::string::npos);
  EXPECT_EQ(to_text(sample(), false).find('\033'), std::string::npos);
}

TEST(Writers, TextWidthCountsCodePointsNotBytes) {
  Table t{"", {"x", "y"}, {{Cell{"±5.0 %"}, Cell{"z"}}}};
  EXPECT_EQ(to_text(t, false), "x       y\n±5.0 %  z\n");
}

TEST(Writers, MarkdownEscapesPipesAndAlignsNumbers) {
  Table t{"", {"a", "b"}, {{Cell{"x|y"}, Cell{"3", Tone::bad, true}}}};
  EXPECT_EQ(to_markdown(t), "| a | b |\n|---|---:|\n| x\\|y | **3** |\n");
}

TEST(Writers, CsvQuotesPerRfc4180) {
  EXPECT_EQ(to_csv(sample()), "name,value\n\"a,b\",1\n\"say \"\"hi\"\"\",22\n");
}

TEST(Writers, HtmlEscapesAndMarksTones) {
  std::string html = to_html(Table{"<t>", {"a"}, {{Cell{"<script>", Tone::bad}}}});
  EXPECT_NE(html.find("<caption>&lt;t&gt;</caption>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"bad\">&lt;script&gt;</td>"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
}

TEST(Writers, ComparisonJsonCarriesVerdictsAndSummary) {
  auto a = test::make_report(
      "a.json", "h", {test::make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 100, "B/s", 0.01)});
  auto b = test::make_report(
      "b.json", "h", {test::make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 80, "B/s", 0.01)});
  auto j = comparison_to_json(compare_reports(a, b, {}), {});
  EXPECT_EQ(j["summary"]["regressions"], 1);
  EXPECT_EQ(j["summary"]["regression"], true);
  EXPECT_EQ(j["changes"][0]["verdict"], "regression");
  EXPECT_NEAR(j["changes"][0]["change"].get<double>(), -0.2, 1e-12);
  EXPECT_NEAR(j["changes"][0]["combined_cv"].get<double>(), std::sqrt(2) * 0.01, 1e-12);
}

}  // namespace
}  // namespace mlbench
