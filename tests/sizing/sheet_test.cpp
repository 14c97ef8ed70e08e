#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "tests/common/files.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

using mlbench::test::slurp;

// Golden Markdown sheets of the shipped examples (default assumptions, no report). Regenerate after an
// intended model change with MLBENCH_UPDATE_GOLDEN=1 and review the diff.
class Golden : public ::testing::TestWithParam<const char*> {};

TEST_P(Golden, ShippedExampleMatchesItsGoldenSheet) {
  auto sheet = plan_file(source_dir() / "configs" / "workloads" / (std::string(GetParam()) + ".yaml"));
  sheet.workload = sheet.workload.substr(0, sheet.workload.find(", /"));  // the absolute path varies
  auto md = render_sheet(sheet, Format::markdown);
  auto golden = data_dir() / "golden" / (std::string(GetParam()) + ".md");
  if (std::getenv("MLBENCH_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << md;
  }
  EXPECT_EQ(md, slurp(golden)) << "regenerate with MLBENCH_UPDATE_GOLDEN=1 if the change is intended";
}

const SheetLine& line_of(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return l;
  throw std::runtime_error("no line " + item);
}

// The JSON figures carry what the table shows: storage, network and power survive the planner's last step.
TEST_P(Golden, JsonFiguresHoldTheTablesStoragePowerAndNetwork) {
  auto sheet = plan_file(source_dir() / "configs" / "workloads" / (std::string(GetParam()) + ".yaml"));
  auto j = nlohmann::json::parse(render_sheet(sheet, Format::json))["figures"];
  ASSERT_TRUE(j.contains("power") && j.contains("network")) << j.dump();
  EXPECT_DOUBLE_EQ(j["power"]["node_w"].get<double>() / 1e3,
                   line_of(sheet, "Node power (nameplate)").quantity);
  EXPECT_DOUBLE_EQ(j["power"]["it_w"].get<double>() / 1e3, line_of(sheet, "IT power").quantity);
  EXPECT_DOUBLE_EQ(j["power"]["racks"].get<double>(), line_of(sheet, "Racks").quantity);
  EXPECT_DOUBLE_EQ(j["power"]["mwh"].get<double>(), line_of(sheet, "Energy").quantity);
  EXPECT_DOUBLE_EQ(j["network"]["leaves"].get<double>(), line_of(sheet, "Leaf switches").quantity);
  ASSERT_TRUE(j.contains("storage")) << j.dump();
  EXPECT_DOUBLE_EQ(j["storage"]["local_drives"].get<double>(),
                   line_of(sheet, "Local NVMe per node").quantity);
  EXPECT_DOUBLE_EQ(j["storage"]["capacity_bytes"].get<double>() / 1e12,
                   line_of(sheet, "Shared capacity").quantity);
  if (sheet.figures.contains("time_s")) {  // training
    EXPECT_DOUBLE_EQ(j["storage"]["checkpoint_bytes"].get<double>() / 1e9,
                     line_of(sheet, "Checkpoint size").quantity);
    EXPECT_DOUBLE_EQ(j["storage"]["write_bytes_per_s"].get<double>() / 1e9,
                     line_of(sheet, "Shared write bandwidth").quantity);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden,
                         ::testing::Values("default", "llm-7b-pretraining", "llm-70b-pretraining",
                                           "llm-405b-pretraining", "resnet50-imagenet", "llm-70b-serving"));

Sheet sample() { return plan_file(source_dir() / "configs" / "workloads" / "default.yaml"); }

TEST(SheetWriters, CsvHasEightColumnsPerLine) {
  auto s = sample();
  std::istringstream in(render_sheet(s, Format::csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "section,item,quantity,unit,specification,driven_by,headroom,source");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, static_cast<int>(s.lines.size() + s.totals.size() + s.assumptions.size()));
}

TEST(SheetWriters, JsonRoundTripsTheLines) {
  auto s = sample();
  auto j = nlohmann::json::parse(render_sheet(s, Format::json));
  ASSERT_EQ(j["lines"].size(), s.lines.size());
  EXPECT_EQ(j["lines"][0]["item"], s.lines[0].item);
  EXPECT_DOUBLE_EQ(j["figures"]["nodes"].get<double>(), s.figures["nodes"].get<double>());
}

TEST(SheetWriters, HtmlEscapesAndTabulates) {
  auto s = sample();
  s.lines[0].spec = "<b>&";
  auto html = render_sheet(s, Format::html);
  EXPECT_NE(html.find("&lt;b&gt;&amp;"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
}

TEST(SheetWriters, XlsxHasBillOfMaterialsAndAssumptionsSheets) {
  if (!xlsx_supported()) GTEST_SKIP() << "built without libxlsxwriter";
  auto bytes = sheet_xlsx(sample());
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 2), "PK");  // a zip container
  // Zip entry names are stored uncompressed: both worksheets and the workbook are present.
  EXPECT_NE(bytes.find("xl/worksheets/sheet1.xml"), std::string::npos);
  EXPECT_NE(bytes.find("xl/worksheets/sheet2.xml"), std::string::npos);
  EXPECT_NE(bytes.find("xl/workbook.xml"), std::string::npos);
}

// A field the planner copies from a workload or catalog can hold any character: each format escapes it as its
// syntax needs (the sheet wrote some fields raw before it went through the one render path).
TEST(SheetWriters, EveryFormatEscapesFieldsWithSyntaxCharacters) {
  const std::string field = "a|b, \"c\" <d>";
  auto s = sample();
  s.lines[0].spec = field;
  s.assumptions[0].source = field;

  auto md = render_sheet(s, Format::markdown);
  EXPECT_NE(md.find(" | a\\|b, \"c\" <d> | "), std::string::npos) << md;
  EXPECT_EQ(md.find("a|b"), std::string::npos) << md;

  auto csv = render_sheet(s, Format::csv);
  EXPECT_NE(csv.find(",\"a|b, \"\"c\"\" <d>\","), std::string::npos) << csv;   // the spec
  EXPECT_NE(csv.find(",\"a|b, \"\"c\"\" <d>\"\n"), std::string::npos) << csv;  // the source, last
  EXPECT_EQ(csv.find(", \"c\""), std::string::npos) << csv;

  auto html = render_sheet(s, Format::html);
  EXPECT_NE(html.find("a|b, &quot;c&quot; &lt;d&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<d>"), std::string::npos);

  auto text = render_sheet(s, Format::text);  // the terminal shows the field as it is
  EXPECT_NE(text.find(field), std::string::npos);

  auto j = nlohmann::json::parse(render_sheet(s, Format::json));
  EXPECT_EQ(j["lines"][0]["spec"], field);
  EXPECT_EQ(j["assumptions"][0]["source"], field);
}

// The terminal layout: a heading per section, the driver, headroom and source beneath each line.
TEST(SheetWriters, TextGroupsLinesBySectionWithTheirDetailsBeneath) {
  auto s = sample();
  auto text = render_sheet(s, Format::text);
  EXPECT_EQ(text.rfind(s.title + "\n" + std::string(s.title.size(), '=') + "\nWorkload: ", 0), 0u) << text;
  EXPECT_EQ(text.find("\n  Section"), std::string::npos) << "the section is a heading, not a column";
  const auto& l = s.lines[0];
  auto at = text.find("\n" + l.section + "\n  " + l.item);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find("\n    Driven by: " + l.driver + "\n", at), std::string::npos);
  EXPECT_NE(text.find("\n    Source: " + l.source + "\n", at), std::string::npos);
  EXPECT_NE(text.find("\nAssumptions and calibration\nName"), std::string::npos);
  EXPECT_NE(text.find("\nWarnings\n  - "), std::string::npos);
}

TEST(SheetWriters, QuantitiesPrintReadably) {
  EXPECT_EQ(format_quantity(64), "64");
  EXPECT_EQ(format_quantity(12.345), "12.3");
  EXPECT_EQ(format_quantity(0.5234), "0.523");
  EXPECT_EQ(format_quantity(250.6), "251");
  EXPECT_EQ(format_quantity(9.03e20), "9.03e+20");
}

}  // namespace
}  // namespace mlbench::sizing::test
