#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.hpp"

#include "reports/compare.hpp"
#include "reports/render.hpp"
#include "reports/table.hpp"
#include "reports/writers.hpp"
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

// The one list: each kind's formats come from kFormats, and every format carries some kind.
TEST(Formats, EachKindsFormatsComeFromTheOneList) {
  using V = std::vector<std::string>;
  EXPECT_EQ(format_names(Content::report), (V{"html", "prometheus", "fio"}));
  EXPECT_EQ(format_names(Content::compare), (V{"table", "md", "csv", "json", "html"}));
  EXPECT_EQ(format_names(Content::fleet), format_names(Content::compare));
  EXPECT_EQ(format_names(Content::check), format_names(Content::compare));
  EXPECT_EQ(format_names(Content::sizing_sheet), (V{"table", "md", "csv", "json", "html", "xlsx"}));
  EXPECT_EQ(format_names(Content::cooling), format_names(Content::compare));
  EXPECT_EQ(format_help(Content::report).rfind("html | prometheus | fio (", 0), 0u);
  const auto listed = formats_to_json();
  ASSERT_EQ(listed.size(), std::size(kFormatNames));
  for (const auto& row : kFormatNames) {
    const auto& f = listed[static_cast<std::size_t>(row.value)];
    EXPECT_EQ(f["name"], row.name);
    EXPECT_FALSE(f["carries"].empty()) << row.name;
    EXPECT_EQ(f["carries"].size(), f["commands"].size()) << row.name;
    for (const auto& k : f["carries"])
      EXPECT_TRUE(carries(row.value, *value_of(kContentNames, k.get<std::string>()))) << row.name << " " << k;
  }
}

// A format a kind does not carry, or no format at all, is one UsageError naming what the kind is written as.
TEST(Formats, AFormatTheKindDoesNotCarryIsRefusedNamingTheOnesItDoes) {
  EXPECT_EQ(format_for(Content::report, "prometheus"), Format::prometheus);
  EXPECT_EQ(format_for(Content::sizing_sheet, "xlsx"), Format::xlsx);
  auto refusal = [](Content k, const char* name) {
    try {
      format_for(k, name);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(Content::compare, "xlsx"),
            "--format xlsx: compare writes table, md, csv, json or html, not xlsx");
  EXPECT_EQ(refusal(Content::report, "md"), "--format md: export writes html, prometheus or fio, not md");
  EXPECT_EQ(refusal(Content::cooling, "xlsx"),
            "--format xlsx: size --compare-cooling writes table, md, csv, json or html, not xlsx");
  EXPECT_EQ(refusal(Content::fleet, "pdf"),
            "unknown --format 'pdf' (compare --fleet writes table, md, csv, json or html)");
}

// Each renderer writes the formats of its kind and refuses the rest; the table writer refuses what is not
// tables.
TEST(Writers, EachRendererRefusesTheFormatsItsKindDoesNotCarry) {
  auto a = test::make_report("a.json", "h",
                             {test::make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 100, "B/s")});
  std::vector<NamedReport> one{a};
  CheckResult c;
  c.file = "a.json";
  EXPECT_THROW(render_check(one, c, Format::prometheus, {}), UsageError);
  EXPECT_THROW(render_report(one, "a.json", Format::csv), UsageError);
  EXPECT_THROW(render_compare({a, a}, {}, {}, Format::xlsx, {}), UsageError);
  EXPECT_THROW(render(Document{}, Format::fio), Error);
  EXPECT_NE(render_report(one, "a.json", Format::prometheus).text.find("mlbench_"), std::string::npos);
  EXPECT_NE(render_report(one, "a.json", Format::html).text.find("<title>mlbench report: a.json</title>"),
            std::string::npos);
}

// CSV is data only: a check's verdict and a comparison's notes come back aside, for stderr, and not in the
// data; the text formats keep them in the output.
TEST(Writers, CsvLeavesTheVerdictAndNotesAside) {
  auto a = test::make_report("a.json", "h",
                             {test::make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 100, "B/s")});
  std::vector<NamedReport> one{a};
  CheckResult c;
  c.file = "a.json";
  const auto csv = render_check(one, c, Format::csv, {});
  ASSERT_EQ(csv.aside.size(), 1u);
  EXPECT_EQ(csv.aside[0], check_verdict(c));
  EXPECT_EQ(csv.text.find(check_verdict(c)), std::string::npos);
  const auto text = render_check(one, c, Format::text, {});
  EXPECT_TRUE(text.aside.empty());
  EXPECT_NE(text.text.find(check_verdict(c)), std::string::npos);

  Comparison cmp = compare_reports(a, a, test::own_spread_only());
  cmp.notes = {"a note"};
  const auto data = render_compare({a, a}, {cmp}, test::own_spread_only(), Format::csv, {});
  EXPECT_EQ(data.aside, std::vector<std::string>{"note: a note"});
  EXPECT_EQ(data.text.find("a note"), std::string::npos);
  EXPECT_NE(
      render_compare({a, a}, {cmp}, test::own_spread_only(), Format::markdown, {}).text.find("note: a note"),
      std::string::npos);
}

}  // namespace
}  // namespace mlbench
