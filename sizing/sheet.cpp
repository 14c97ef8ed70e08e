#include "sizing/sheet.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "base/error.hpp"
#include "reports/table.hpp"

namespace mlbench::sizing {
namespace {

using Json = nlohmann::json;

Json line_json(const SheetLine& l) {
  Json j{{"section", l.section}, {"item", l.item},     {"quantity", l.quantity}, {"unit", l.unit},
         {"spec", l.spec},       {"driver", l.driver}, {"headroom", l.headroom}, {"source", l.source}};
  if (l.unit_price > 0) j["unit_price"] = l.unit_price;
  return j;
}

Json table_json(const Table& t) {
  Json rows = Json::array();
  for (const auto& r : t.rows) {
    Json row = Json::array();
    for (const auto& c : r) row.push_back(c.text);
    rows.push_back(std::move(row));
  }
  return {{"title", t.title}, {"columns", t.columns}, {"rows", std::move(rows)}};
}

Tone tone_of_source(const std::string& source) {
  if (source == "measured") return Tone::good;
  if (source == "transferred") return Tone::warn;
  return Tone::plain;
}

std::vector<Cell> line_cells(const SheetLine& l) {
  return {Cell{l.section},
          Cell{l.item},
          Cell{format_quantity(l.quantity), Tone::plain, true, l.quantity},
          Cell{l.unit},
          Cell{l.spec},
          Cell{l.driver},
          Cell{l.headroom},
          Cell{l.source, tone_of_source(l.source)}};
}

}  // namespace

std::string with_separators(double v, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::abs(v), decimals);
  auto point = digits.find('.');
  std::string whole = digits.substr(0, point);
  std::string out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  if (point != std::string::npos) out += digits.substr(point);
  bool zero = digits.find_first_not_of("0.") == std::string::npos;
  return (v < 0 && !zero ? "-" : "") + out;
}

std::string format_quantity(double v) {
  double a = std::abs(v);
  if (!std::isfinite(v) || a >= 1e15) return fmt::format("{:.3g}", v);
  if (v == std::round(v) || a >= 100) return with_separators(v, 0);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  if (a == 0) return "0";
  // Below a millionth a quantity is too small to matter on a sheet: it says so rather than print zeros.
  if (a < 1e-6) return v > 0 ? "< 0.000001" : "> -0.000001";
  // Three significant figures in fixed notation: 0.000123, not 1.23e-04.
  int decimals = 2 - static_cast<int>(std::floor(std::log10(a)));
  return fmt::format("{:.{}f}", v, decimals);
}

std::string decimal_bytes(double bytes) {
  static constexpr std::array<std::string_view, 5> kUnits{"B", "kB", "MB", "GB", "TB"};
  std::size_t u = 0;
  while (u + 1 < kUnits.size() && std::abs(bytes) >= 1000) {
    bytes /= 1000;
    ++u;
  }
  if (std::abs(bytes) >= 1000) return fmt::format("{} PB", with_separators(bytes / 1000, 2));
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, kUnits[u]);
}

void use_readable_units(Sheet& s) {
  struct Change {
    std::string_view from, to;
    double factor;              // quantity in `to` = quantity in `from` x factor
    bool (*applies)(double q);  // on the quantity in `from`
  };
  static constexpr Change kChanges[] = {
      {"days", "hours", 24, [](double q) { return q < 1; }},
      {"hours", "days", 1 / 24.0, [](double q) { return q >= 24; }},
      {"MWh", "kWh", 1000, [](double q) { return q < 1; }},
  };
  for (auto* rows : {&s.lines, &s.totals})
    for (auto& l : *rows)
      for (const auto& c : kChanges)
        if (l.unit == c.from && c.applies(l.quantity)) {
          l.quantity *= c.factor;
          l.formula_per /= c.factor;
          l.unit_price /= c.factor;
          l.unit = c.to;
          break;
        }
}

void group_sections(Sheet& s) {
  static constexpr std::string_view kOrder[] = {"Compute", "Memory", "Storage", "Network",
                                                "Power",   "Host",   "Cost"};
  auto rank = [](const SheetLine& l) {
    return std::find(std::begin(kOrder), std::end(kOrder), l.section) - std::begin(kOrder);
  };
  std::stable_sort(s.lines.begin(), s.lines.end(),
                   [&](const SheetLine& a, const SheetLine& b) { return rank(a) < rank(b); });
}

Json to_json(const Sheet& s) {
  Json j{{"title", s.title},        {"workload", s.workload},       {"hardware", s.hardware},
         {"mode", s.mode},          {"headroom", s.headroom},       {"lines", Json::array()},
         {"totals", Json::array()}, {"assumptions", Json::array()}, {"warnings", s.warnings},
         {"figures", s.figures}};
  for (const auto& l : s.lines) j["lines"].push_back(line_json(l));
  for (const auto& l : s.totals) j["totals"].push_back(line_json(l));
  for (const auto& a : s.assumptions)
    j["assumptions"].push_back(
        {{"name", a.name}, {"value", a.value}, {"source", a.source}, {"basis", a.basis}});
  j["tables"] = Json::array();
  for (const auto& t : s.tables) j["tables"].push_back(table_json(t));
  return j;
}

Document sheet_document(const Sheet& s) {
  Document d;
  d.title = s.title;
  d.facts = {"Workload: " + s.workload, "Hardware: " + s.hardware, "Planning: " + s.mode,
             fmt::format("Headroom: {:.2f} per resource", s.headroom)};
  Table bom{"",
            {"Section", "Item", "Quantity", "Unit", "Specification", "Driven by", "Headroom", "Source"},
            {},
            true,
            3};
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows) bom.rows.push_back(line_cells(l));
  Table assumptions{"Assumptions and calibration", {"Name", "Value", "Source", "Basis"}, {}};
  for (const auto& a : s.assumptions)
    assumptions.rows.push_back(
        {Cell{a.name}, Cell{a.value}, Cell{a.source, tone_of_source(a.source)}, Cell{a.basis}});
  d.tables = {std::move(bom), std::move(assumptions)};
  d.tables.insert(d.tables.begin() + 1, s.tables.begin(), s.tables.end());
  d.list_title = "Warnings";
  d.list = s.warnings;
  d.json = to_json(s);
  return d;
}

Table sheet_data(const Sheet& s) {
  Table t{
      "", {"section", "item", "quantity", "unit", "specification", "driven_by", "headroom", "source"}, {}};
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows)
      t.rows.push_back({Cell{l.section}, Cell{l.item}, Cell{csv_number(l.quantity)}, Cell{l.unit},
                        Cell{l.spec}, Cell{l.driver}, Cell{l.headroom}, Cell{l.source}});
  for (const auto& a : s.assumptions)
    t.rows.push_back({Cell{"Assumptions"}, Cell{a.name}, Cell{csv_number(a.quantity)}, Cell{a.unit}, Cell{},
                      Cell{a.basis}, Cell{}, Cell{a.source}});
  for (const auto& side : s.tables) {
    const std::string section = side.title.substr(0, side.title.find(':'));
    for (const auto& row : side.rows) {
      if (row.empty()) continue;
      for (std::size_t c = 1; c < row.size() && c < side.columns.size(); ++c) {
        if (!row[c].number) continue;
        std::string column = side.columns[c];
        std::transform(column.begin(), column.end(), column.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        t.rows.push_back({Cell{section}, Cell{row.front().text + " " + column},
                          Cell{csv_number(*row[c].number)}, Cell{row[c].unit}, Cell{}, Cell{row.back().text},
                          Cell{}, Cell{}});
      }
    }
  }
  return t;
}

void check_sheet_output(Format f, bool to_file) {
  if (f != Format::xlsx) return;
  if (!to_file) throw UsageError("--format xlsx writes a binary workbook: give -o FILE.xlsx");
  if (!xlsx_supported())
    throw UsageError("this mlbench was built without libxlsxwriter: use --format csv, md, json or html");
}

std::string render_sheet(const Sheet& s, Format f) {
  if (f == Format::xlsx) return sheet_xlsx(s);
  if (f != Format::csv) return render(sheet_document(s), f);
  Document data;
  data.tables = {sheet_data(s)};
  return render(data, f);
}

}  // namespace mlbench::sizing
