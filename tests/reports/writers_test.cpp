#include <gtest/gtest.h>

#include "reports/compare.hpp"
#include "reports/render.hpp"
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

TEST(Render, FormatNamesRoundTrip) {
  for (const auto& name : format_names()) {
    auto f = format_from_string(name);
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(to_string(*f), name);
  }
  EXPECT_EQ(format_from_string("table"), Format::text);
  EXPECT_EQ(format_from_string("md"), Format::markdown);
  EXPECT_FALSE(format_from_string("pdf"));
}

TEST(Render, TextSeparatesTablesAndEndsWithNotesAndTheClosingLine) {
  Table one{"", {"x"}, {{Cell{"1"}}}};
  EXPECT_EQ(render({one}, {}, Format::text), "x\n1\n");  // nothing follows: no blank line
  Document d;
  d.tables = {one, one};
  d.notes = {"n"};
  d.closing = "done";
  EXPECT_EQ(render(d, Format::text), "x\n1\n\nx\n1\n\nnote: n\ndone\n");
}

TEST(Render, MarkdownHeadingsSitOneLevelBelowTheTitle) {
  Table t{"t", {"x"}, {{Cell{"1"}}}};
  EXPECT_EQ(render({t}, {}, Format::markdown), "### t\n\n| x |\n|---|\n| 1 |\n");
  Document d;
  d.title = "Page";
  d.facts = {"a: b"};
  d.tables = {t};
  d.list_title = "Warnings";
  d.list = {"w"};
  EXPECT_EQ(render(d, Format::markdown),
            "# Page\n\n- a: b\n\n## t\n\n| x |\n|---|\n| 1 |\n\n## Warnings\n\n- w\n");
}

TEST(Render, CsvIsTheRowsOfEveryTableUnderOneHeader) {
  Document d;
  d.tables = {sample(), sample()};
  d.notes = {"not data"};
  d.title = "neither";
  EXPECT_EQ(render(d, Format::csv),
            "name,value\n\"a,b\",1\n\"say \"\"hi\"\"\",22\n\"a,b\",1\n\"say \"\"hi\"\"\",22\n");
}

TEST(Render, HtmlIsAFragmentWithoutATitleAndAPageWithOne) {
  Table t{"", {"a"}, {{Cell{"<x>"}}}};
  auto fragment = render({t}, {"<n>"}, Format::html);
  EXPECT_EQ(fragment.rfind("<table>", 0), 0u);
  EXPECT_NE(fragment.find("<p class=\"note\">note: &lt;n&gt;</p>"), std::string::npos);
  Document d;
  d.title = "T & U";
  d.tables = {t};
  d.list_title = "Warnings";
  d.list = {"<w>"};
  auto page = render(d, Format::html);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<h1>T &amp; U</h1>"), std::string::npos);
  EXPECT_NE(page.find("<li>&lt;w&gt;</li>"), std::string::npos);
  EXPECT_EQ(page.find("<x>"), std::string::npos);
}

TEST(Render, JsonWritesTheDocumentsData) {
  Document d;
  d.tables = {sample()};
  d.json = Json{{"k", 1}};
  EXPECT_EQ(render(d, Format::json), "{\n  \"k\": 1\n}\n");
}

TEST(Writers, GroupedTextPutsTheFirstColumnAsHeadingsAndDetailsBeneath) {
  Table t{"",
          {"group", "name", "n", "why"},
          {{Cell{"A"}, Cell{"x"}, Cell{"1", Tone::plain, true}, Cell{"because"}},
           {Cell{"A"}, Cell{"yy"}, Cell{"22", Tone::plain, true}, Cell{}},
           {Cell{"B"}, Cell{"z"}, Cell{"3", Tone::plain, true}, Cell{"so"}}},
          true,
          1};
  EXPECT_EQ(to_text(t, false),
            "  name  n\n\nA\n  x      1\n    why: because\n  yy    22\n\nB\n  z      3\n    why: so\n");
}

TEST(Writers, ComparisonJsonCarriesVerdictsAndSummary) {
  // Each bandwidth known to ±1 % (relative standard uncertainty, through its ci).
  auto result = [](double value) {
    auto r = test::make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", value, "B/s");
    r.metrics[0].ci = symmetric_ci(value, 0.01 * value);
    return r;
  };
  auto a = test::make_report("a.json", "h", {result(100)});
  auto b = test::make_report("b.json", "h", {result(80)});
  auto j = comparison_to_json(compare_reports(a, b, test::own_spread_only()), {});
  EXPECT_EQ(j["summary"]["regressions"], 1);
  EXPECT_EQ(j["summary"]["regression"], true);
  EXPECT_EQ(j["changes"][0]["verdict"], "regression");
  EXPECT_NEAR(j["changes"][0]["change"].get<double>(), -0.2, 1e-12);
  EXPECT_NEAR(j["changes"][0]["spread_base"].get<double>(), 0.01, 1e-12);
  EXPECT_NEAR(j["changes"][0]["spread_other"].get<double>(), 0.01, 1e-12);
  EXPECT_NEAR(j["changes"][0]["combined_cv"].get<double>(), std::sqrt(2) * 0.01, 1e-12);
}

}  // namespace
}  // namespace mlbench
