#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/error.hpp"
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
  const auto& energy = line_of(sheet, "Energy");  // in kWh under 1 MWh
  EXPECT_DOUBLE_EQ(j["power"]["mwh"].get<double>() * (energy.unit == "kWh" ? 1000 : 1), energy.quantity);
  if (j["network"]["kind"] == "front-end")
    EXPECT_DOUBLE_EQ(j["network"]["switches"].get<double>(), line_of(sheet, "Top-of-rack switches").quantity);
  else
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
                                           "llm-405b-pretraining", "resnet50-imagenet", "llm-70b-serving",
                                           "deepseek-v3-fp4-offline"));

Sheet sample() { return plan_file(source_dir() / "configs" / "workloads" / "default.yaml"); }

// RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        rows.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        rows.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

// The whole field as a number (strtod consumes all of it), else nullopt: "22308311" and "0.93" are numbers,
// "22,308,311" and "93 %" are not.
std::optional<double> number_of(const std::string& field) {
  if (field.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size()) return std::nullopt;
  return v;
}

TEST(SheetWriters, CsvHasEightColumnsPerLine) {
  auto s = sample();
  auto rows = csv_rows(render_sheet(s, Format::csv));
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0], (std::vector<std::string>{"section", "item", "quantity", "unit", "specification",
                                               "driven_by", "headroom", "source"}));
  for (const auto& r : rows) EXPECT_EQ(r.size(), 8u) << r[0] << " " << r[1];
}

// The CSV is data a spreadsheet sums without cleaning: every quantity a plain number (the exact double, no
// thousands separators, no "%"), its unit in the unit column; each assumption's value a number in quantity;
// the RAID levels' figures as rows of their own.
TEST(SheetWriters, CsvQuantitiesAreRawNumbersWithTheirUnits) {
  auto s = sample();
  auto rows = csv_rows(render_sheet(s, Format::csv));
  ASSERT_GT(rows.size(), 1u);
  std::size_t assumptions = 0, raid = 0;
  bool big = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), 8u);
    const auto q = number_of(r[2]);
    EXPECT_TRUE(q.has_value()) << r[0] << " / " << r[1] << ": quantity '" << r[2] << "'";
    big = big || (q && *q >= 1000);
    if (r[0] == "Assumptions") ++assumptions;
    if (r[0] == "Local NVMe RAID levels") {
      ++raid;
      EXPECT_FALSE(r[3].empty()) << r[1];
    }
  }
  EXPECT_TRUE(big);  // a quantity over 999 is written without separators
  EXPECT_EQ(assumptions, s.assumptions.size());
  EXPECT_GE(raid, 5 * 3u);  // several levels, each with its drives, capacity and speeds
  for (const auto* lines : {&s.lines, &s.totals})
    for (const auto& l : *lines) {
      auto it = std::find_if(rows.begin(), rows.end(),
                             [&](const auto& r) { return r[0] == l.section && r[1] == l.item; });
      ASSERT_NE(it, rows.end()) << l.item;
      EXPECT_EQ(number_of((*it)[2]), l.quantity) << l.item;
      EXPECT_EQ((*it)[3], l.unit) << l.item;
    }
  auto headroom = std::find_if(rows.begin(), rows.end(),
                               [](const auto& r) { return r[0] == "Assumptions" && r[1] == "Headroom"; });
  ASSERT_NE(headroom, rows.end());
  EXPECT_EQ(number_of((*headroom)[2]), s.headroom);
  auto usable = std::find_if(rows.begin(), rows.end(), [](const auto& r) {
    return r[0] == "Local NVMe RAID levels" && r[1] == "RAID-0 usable";
  });
  ASSERT_NE(usable, rows.end());
  EXPECT_EQ((*usable)[3], "B");
  EXPECT_GT(number_of((*usable)[2]).value_or(0), 1e12);
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

Sheet planned(const char* workload, std::optional<int> nodes = std::nullopt) {
  PlanRequest req;
  req.workload = load_workload(source_dir() / "configs" / "workloads" / (std::string(workload) + ".yaml"));
  req.nodes = nodes;
  return plan(req, shipped_catalog());
}

// The workbook's part `name`, read with unzip; "" when unzip is missing.
std::string xlsx_part(const std::string& bytes, const std::string& name) {
  mlbench::test::TempDir dir;
  auto path = dir.path() / "sheet.xlsx";
  std::ofstream(path, std::ios::binary) << bytes;
  std::string out;
  FILE* p = ::popen(("unzip -p '" + path.string() + "' " + name + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// What render_sheet needs of its destination is checked before planning: the workbook only into a file, and
// only from a build with libxlsxwriter; every text format anywhere.
TEST(SheetWriters, XlsxNeedsAFileAndLibxlsxwriter) {
  for (Format f : {Format::text, Format::markdown, Format::csv, Format::json, Format::html}) {
    EXPECT_NO_THROW(check_sheet_output(f, false));
    EXPECT_NO_THROW(check_sheet_output(f, true));
  }
  try {
    check_sheet_output(Format::xlsx, false);
    ADD_FAILURE() << "xlsx to stdout accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--format xlsx writes a binary workbook: give -o FILE.xlsx");
  }
  if (xlsx_supported()) {
    EXPECT_NO_THROW(check_sheet_output(Format::xlsx, true));
  } else {
    EXPECT_THROW(check_sheet_output(Format::xlsx, true), UsageError);
  }
}

// A procurement reader edits the workbook: a changed price or count recomputes the totals: priced lines have
// a cost formula, capital and the totals are formulas over the item cells, counts are formatted as integers.
TEST(SheetWriters, XlsxTotalsAreLiveFormulasAndCountsAreIntegers) {
  if (!xlsx_supported()) GTEST_SKIP() << "built without libxlsxwriter";
  if (std::system("unzip -v >/dev/null 2>&1") != 0) GTEST_SKIP() << "no unzip";
  auto s = planned("llm-405b-pretraining");
  auto bytes = sheet_xlsx(s);
  auto sheet = xlsx_part(bytes, "xl/worksheets/sheet1.xml");
  auto styles = xlsx_part(bytes, "xl/styles.xml");
  ASSERT_FALSE(sheet.empty());
  // The row of each line: header at row 7 (title, 4 facts, a blank), lines from row 8.
  auto row_of = [&](const std::string& item) {
    for (std::size_t i = 0; i < s.lines.size(); ++i)
      if (s.lines[i].item == item) return static_cast<int>(i) + 8;
    return -1;
  };
  int nodes = row_of("Nodes"), leaves = row_of("Leaf switches"), capital = row_of("Capital");
  ASSERT_GT(nodes, 0);
  EXPECT_NE(sheet.find(fmt::format("<f>C{}*I{}</f>", nodes, nodes)), std::string::npos) << sheet;
  EXPECT_NE(sheet.find(fmt::format("<c r=\"C{}\"", capital)), std::string::npos);
  EXPECT_NE(sheet.find(fmt::format("<f>J{}+J{}+", nodes, leaves)), std::string::npos) << "capital sums costs";
  EXPECT_NE(sheet.find(fmt::format("<f>C{}*8</f>", nodes)), std::string::npos) << "total GPUs = nodes x 8";
  EXPECT_NE(sheet.find(fmt::format("<f>C{}</f>", capital)), std::string::npos) << "total capital";
  EXPECT_NE(styles.find("formatCode=\"#,##0\""), std::string::npos) << styles;
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
  EXPECT_EQ(format_quantity(9.03e20), "9.03e+20");  // FLOP counts keep their exponent
  // Money and counts for a procurement reader: separators, never an exponent.
  EXPECT_EQ(format_quantity(7.63e8), "763,000,000");
  EXPECT_EQ(format_quantity(42266.4), "42,266");
  EXPECT_EQ(format_quantity(0.0000123), "0.0000123");
  EXPECT_EQ(format_quantity(std::nan("")), "nan");
  EXPECT_EQ(with_separators(-1234567.891, 2), "-1,234,567.89");
  EXPECT_EQ(with_separators(999), "999");
  EXPECT_EQ(decimal_bytes(2.048e12), "2.05 TB");
  EXPECT_EQ(decimal_bytes(5.68e15), "5.68 PB");
}

// A sheet a procurement reader can take as it is.
TEST(SheetForProcurement, MoneyHasSeparatorsAndNoExponent) {
  auto s = planned("llm-405b-pretraining");
  auto md = render_sheet(s, Format::markdown);
  for (const auto& l : s.lines)
    if (l.section == "Cost") {
      auto shown = format_quantity(l.quantity);
      EXPECT_EQ(shown.find('e'), std::string::npos) << l.item << ": " << shown;
      EXPECT_EQ(l.driver.find("e+"), std::string::npos) << l.item << ": " << l.driver;
    }
  EXPECT_NE(md.find("| Cost | Capital | " + format_quantity(line_of(s, "Capital").quantity) + " | USD"),
            std::string::npos);
  EXPECT_NE(format_quantity(line_of(s, "Capital").quantity).find(','), std::string::npos);
}

TEST(SheetForProcurement, TimesAndEnergiesInSensibleUnits) {
  auto fast = planned("default", 8);  // a few hours on 8 nodes
  const auto& time = line_of(fast, "Time to train");
  EXPECT_EQ(time.unit, "hours");
  EXPECT_LT(time.quantity, 24);
  // The formula still evaluates to the quantity in its new unit.
  double seconds = fast.figures["time_s"].get<double>();
  EXPECT_NEAR(time.quantity * time.formula_per, seconds, 1e-9 * seconds);
  EXPECT_EQ(line_of(plan_file(data_dir() / "megatron-gpt-1.7b-h100.yaml"), "Energy").unit,
            "kWh");  // 110 kWh: 1.5 hours on 6 nodes
  auto big = planned("llm-405b-pretraining");
  EXPECT_EQ(line_of(big, "Time to train").unit, "days");
  EXPECT_EQ(line_of(big, "Energy").unit, "MWh");
}

TEST(SheetForProcurement, DecimalAndBinaryUnitsAreNeverMixedInTheSheetSections) {
  for (const char* w : {"default", "llm-405b-pretraining", "resnet50-imagenet", "llm-70b-serving"}) {
    auto s = planned(w);
    for (const auto& l : s.lines) {
      if (l.section == "Compute" || l.section == "Memory") continue;
      for (const auto* text : {&l.spec, &l.driver})
        for (const char* binary : {"KiB", "MiB", "GiB", "TiB"})
          EXPECT_EQ(text->find(binary), std::string::npos) << w << ": " << l.item << ": " << *text;
    }
  }
}

// A line in a byte unit speaks that unit's family only: decimal GB/TB with decimal texts, GiB (HBM) with
// binary ones.
TEST(SheetForProcurement, ALineInBytesKeepsOneUnitFamily) {
  for (const char* w : {"default", "llm-405b-pretraining", "resnet50-imagenet", "llm-70b-serving"}) {
    auto s = planned(w);
    for (const auto& l : s.lines) {
      bool binary = l.unit == "GiB";
      if (!binary && l.unit != "GB" && l.unit != "TB") continue;
      for (const auto* text : {&l.spec, &l.driver, &l.headroom}) {
        for (const char* other : binary ? std::vector<const char*>{" GB ", " TB ", " MB "}
                                        : std::vector<const char*>{"KiB", "MiB", "GiB", "TiB"})
          EXPECT_EQ((*text + " ").find(other), std::string::npos) << w << ": " << l.item << ": " << *text;
      }
    }
  }
}

TEST(SheetForProcurement, AChosenValueOffItsOptimumSaysWhy) {
  auto s = planned("llm-405b-pretraining");  // interval 1 h, optimum under 1 h at its thousands of nodes
  const auto& l = line_of(s, "Checkpoint interval");
  EXPECT_NE(l.driver.find("the workload's checkpoint.interval_h, not the optimum"), std::string::npos)
      << l.driver;
  // sqrt(2 x 300 s x 6,000 h / nodes): 0.69 h at 2,112 nodes.
  double nodes = s.figures["nodes"].get<double>();
  double optimum_h = std::sqrt(2 * 300.0 * 6000 * 3600 / nodes) / 3600;
  EXPECT_NE(l.driver.find(fmt::format("= {:.2f} h", optimum_h)), std::string::npos) << l.driver;
}

TEST(SheetForProcurement, ShortfallsAndIdleGpusAreWarnings) {
  auto s = planned("llm-405b-pretraining");  // 3,028 GB host RAM needed, 2,048 GB installed
  auto has = [&](const Sheet& sheet, const std::string& text) {
    for (const auto& w : sheet.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has(s, "host RAM: 3,028 GB needed per node, 2,048 GB installed")) << nlohmann::json(s.warnings);
  auto idle = planned("llm-7b-pretraining", 100000);
  EXPECT_TRUE(has(idle, "GPUs idle")) << nlohmann::json(idle.warnings);
}

// A checkpoint setting the workload did not give is the engine's default and the line says so, not "the
// workload's checkpoint.interval_h".
TEST(SheetForProcurement, ACheckpointTheWorkloadDidNotGiveIsNotCalledTheWorkloads) {
  mlbench::test::TempDir dir;
  auto path = dir.path() / "no-checkpoint.yaml";
  std::ofstream(path) << "kind: llm-training\nmodel: {params: 7e9}\ntokens: 1e11\nseq_len: 4096\nnodes: 64\n";
  PlanRequest req;
  req.workload = load_workload(path);
  auto s = plan(req, shipped_catalog());
  for (const char* item : {"Checkpoint interval", "Shared write bandwidth", "Shared capacity"}) {
    const auto& l = line_of(s, item);
    EXPECT_EQ(l.driver.find("the workload's checkpoint"), std::string::npos) << item << ": " << l.driver;
    EXPECT_EQ(l.source, "assumed") << item;
  }
  EXPECT_NE(line_of(s, "Checkpoint interval").driver.find("the workload gives no checkpoint.interval_h"),
            std::string::npos);
  // Given, it is the workload's.
  auto with = planned("llm-405b-pretraining");  // interval 1 h, off its optimum
  const auto& given = line_of(with, "Checkpoint interval");
  EXPECT_NE(given.driver.find("the workload's checkpoint.interval_h"), std::string::npos) << given.driver;
  EXPECT_EQ(given.source, "workload");
}

// The numbers of a driver, in order, separators removed ("1,103.04 h" -> 1103.04).
std::vector<double> numbers_in(const std::string& text) {
  std::vector<double> out;
  std::regex number(R"((\d[\d,]*(\.\d+)?(e[+-]?\d+)?))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    std::string digits = (*it)[1].str();
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    out.push_back(std::stod(digits));
  }
  return out;
}

TEST(SheetForProcurement, PrintedOperandsReproduceTheirResult) {
  PlanRequest one;
  one.workload = load_workload(source_dir() / "configs" / "workloads" / "llm-70b-serving.yaml");
  one.nodes = 1;
  std::vector<Sheet> sheets{plan(one, shipped_catalog()), planned("llm-70b-pretraining"), planned("default")};
  for (const auto& s : sheets) {
    SCOPED_TRACE(s.title);
    // (nodes x node W x share + switches W) / 1000 x hours x PUE, in kWh.
    const auto& energy = line_of(s, "Energy");
    auto e = numbers_in(energy.driver.substr(0, energy.driver.find(" = ")));
    ASSERT_GE(e.size(), 7u) << energy.driver;
    double kwh = (e[0] * e[1] * e[2] + e[3]) / e[4] * e[5] * e[6];
    EXPECT_EQ(format_quantity(kwh / (energy.unit == "kWh" ? 1 : 1000)), format_quantity(energy.quantity))
        << energy.driver;
    // nodes x node W + switches x switch W, in kW.
    const auto& it = line_of(s, "IT power");
    auto p = numbers_in(it.driver.substr(0, it.driver.find(" = ")));
    ASSERT_GE(p.size(), 4u) << it.driver;
    EXPECT_EQ(format_quantity((p[0] * p[1] + p[2] * p[3]) / 1000), format_quantity(it.quantity)) << it.driver;
    // capital / years x run s / s per year + energy.
    const SheetLine* cost = nullptr;
    for (const auto& l : s.lines)
      if (l.item == "Cost per run" || l.item == "Cost per year") cost = &l;
    ASSERT_NE(cost, nullptr);
    auto c = numbers_in(cost->driver.substr(0, cost->driver.find(" = ")));
    ASSERT_GE(c.size(), 5u) << cost->driver;
    // To a cent and a millionth of the quantity: the operands print cents, and a rounded quantity may round
    // a half the other way.
    EXPECT_NEAR(c[0] / c[1] * c[2] / c[3] + c[4], cost->quantity, 0.01 + 1e-6 * cost->quantity)
        << cost->driver;
    // Training: tokens / rate / goodput = the seconds printed, to the last digit.
    for (const auto& l : s.lines)
      if (l.item == "Time to train") {
        auto t = numbers_in(l.driver.substr(0, l.driver.find(';')));
        ASSERT_GE(t.size(), 4u) << l.driver;
        EXPECT_NEAR(t[0] / t[1] / t[2], t[3], 1) << l.driver;
      }
  }
}

// A queue wait of 1e-20 s is not printed as twelve zeros.
TEST(SheetForProcurement, NoQuantityPrintsAsARowOfZeros) {
  EXPECT_EQ(format_quantity(3e-20), "< 0.000001");
  auto s = planned("llm-70b-serving");
  for (const auto& l : s.lines)
    EXPECT_EQ(format_quantity(l.quantity).find("0.0000000"), std::string::npos) << l.item;
}

TEST(SheetForProcurement, EachSectionOnce) {
  for (const char* w : {"default", "llm-405b-pretraining", "resnet50-imagenet", "llm-70b-serving"}) {
    auto s = planned(w);
    std::vector<std::string> seen;
    for (const auto& l : s.lines)
      if (seen.empty() || seen.back() != l.section) {
        EXPECT_EQ(std::count(seen.begin(), seen.end(), l.section), 0) << w << ": " << l.section << " twice";
        seen.push_back(l.section);
      }
  }
}

}  // namespace
}  // namespace mlbench::sizing::test
