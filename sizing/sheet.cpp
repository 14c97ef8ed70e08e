#include "sizing/sheet.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "reports/table.hpp"

namespace mlbench::sizing {
namespace {

using Json = nlohmann::json;

Json line_json(const SheetLine& l) {
  return {{"section", l.section}, {"item", l.item},     {"quantity", l.quantity}, {"unit", l.unit},
          {"spec", l.spec},       {"driver", l.driver}, {"headroom", l.headroom}, {"source", l.source}};
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string header_text(const Sheet& s) {
  return fmt::format("Workload: {}\nHardware: {}\nPlanning: {}\nHeadroom: {:.2f} per resource\n", s.workload,
                     s.hardware, s.mode, s.headroom);
}

std::string render_table(const Sheet& s) {
  std::ostringstream os;
  os << s.title << "\n" << std::string(s.title.size(), '=') << "\n" << header_text(s) << "\n";
  std::string section;
  for (const auto* rows : {&s.lines, &s.totals}) {
    for (const auto& l : *rows) {
      if (l.section != section) {
        section = l.section;
        os << "\n" << section << "\n";
      }
      os << fmt::format("  {:<34} {:>12} {:<10} {}\n", l.item, format_quantity(l.quantity), l.unit, l.spec);
      if (!l.driver.empty()) os << fmt::format("  {:<34} why: {}\n", "", l.driver);
      os << fmt::format("  {:<34} headroom: {} | {}\n", "", l.headroom.empty() ? "-" : l.headroom, l.source);
    }
  }
  os << "\nAssumptions and calibration\n";
  for (const auto& a : s.assumptions)
    os << fmt::format("  {:<34} {:<14} {:<11} {}\n", a.name, a.value, a.source, a.basis);
  if (!s.warnings.empty()) {
    os << "\nWarnings\n";
    for (const auto& w : s.warnings) os << "  - " << w << "\n";
  }
  return os.str();
}

std::string render_md(const Sheet& s) {
  std::ostringstream os;
  os << "# " << s.title << "\n\n";
  os << "- Workload: " << s.workload << "\n- Hardware: " << s.hardware << "\n- Planning: " << s.mode
     << fmt::format("\n- Headroom: {:.2f} per resource\n\n", s.headroom);
  os << "| Section | Item | Quantity | Unit | Specification | Driven by | Headroom | Source |\n";
  os << "|---|---|---:|---|---|---|---|---|\n";
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows)
      os << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_cell(l.section), md_cell(l.item),
                        format_quantity(l.quantity), md_cell(l.unit), md_cell(l.spec), md_cell(l.driver),
                        md_cell(l.headroom), md_cell(l.source));
  os << "\n## Assumptions and calibration\n\n| Name | Value | Source | Basis |\n|---|---|---|---|\n";
  for (const auto& a : s.assumptions)
    os << fmt::format("| {} | {} | {} | {} |\n", md_cell(a.name), md_cell(a.value), a.source,
                      md_cell(a.basis));
  if (!s.warnings.empty()) {
    os << "\n## Warnings\n\n";
    for (const auto& w : s.warnings) os << "- " << w << "\n";
  }
  return os.str();
}

std::string render_csv(const Sheet& s) {
  std::ostringstream os;
  os << "section,item,quantity,unit,specification,driven_by,headroom,source\n";
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows)
      os << fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(l.section), csv_field(l.item),
                        format_quantity(l.quantity), csv_field(l.unit), csv_field(l.spec),
                        csv_field(l.driver), csv_field(l.headroom), csv_field(l.source));
  for (const auto& a : s.assumptions)
    os << fmt::format("Assumptions,{},,{},,{},,{}\n", csv_field(a.name), csv_field(a.value),
                      csv_field(a.basis), a.source);
  return os.str();
}

std::string render_html(const Sheet& s) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(s.title)
     << "</title>\n<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid "
        "#ccc;"
        "padding:3px "
        "6px;vertical-align:top}td.q{text-align:right}.measured{color:#060}.transferred{color:#850}"
        ".assumed{color:#666}</style></head><body>\n";
  os << "<h1>" << html_escape(s.title) << "</h1>\n<ul>";
  os << "<li>Workload: " << html_escape(s.workload) << "</li><li>Hardware: " << html_escape(s.hardware)
     << "</li><li>Planning: " << html_escape(s.mode)
     << fmt::format("</li><li>Headroom: {:.2f}</li></ul>\n", s.headroom);
  os << "<table><tr><th>Section</th><th>Item</th><th>Quantity</th><th>Unit</th><th>Specification</th>"
        "<th>Driven by</th><th>Headroom</th><th>Source</th></tr>\n";
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows)
      os << "<tr><td>" << html_escape(l.section) << "</td><td>" << html_escape(l.item)
         << "</td><td class=\"q\">" << format_quantity(l.quantity) << "</td><td>" << html_escape(l.unit)
         << "</td><td>" << html_escape(l.spec) << "</td><td>" << html_escape(l.driver) << "</td><td>"
         << html_escape(l.headroom) << "</td><td class=\"" << html_escape(l.source) << "\">"
         << html_escape(l.source) << "</td></tr>\n";
  os << "</table>\n<h2>Assumptions and "
        "calibration</h2>\n<table><tr><th>Name</th><th>Value</th><th>Source</th>"
        "<th>Basis</th></tr>\n";
  for (const auto& a : s.assumptions)
    os << "<tr><td>" << html_escape(a.name) << "</td><td>" << html_escape(a.value) << "</td><td class=\""
       << html_escape(a.source) << "\">" << html_escape(a.source) << "</td><td>" << html_escape(a.basis)
       << "</td></tr>\n";
  os << "</table>\n";
  if (!s.warnings.empty()) {
    os << "<h2>Warnings</h2><ul>";
    for (const auto& w : s.warnings) os << "<li>" << html_escape(w) << "</li>";
    os << "</ul>\n";
  }
  os << "</body></html>\n";
  return os.str();
}

}  // namespace

SheetFormat sheet_format_from_string(std::string_view name) {
  if (name == "table") return SheetFormat::table;
  if (name == "md") return SheetFormat::md;
  if (name == "csv") return SheetFormat::csv;
  if (name == "json") return SheetFormat::json;
  if (name == "html") return SheetFormat::html;
  if (name == "xlsx") return SheetFormat::xlsx;
  throw UsageError(fmt::format("unknown --format '{}' (use table, md, csv, json, html or xlsx)", name));
}

std::string format_quantity(double v) {
  double a = std::abs(v);
  if (a >= 1e7) return fmt::format("{:.3g}", v);
  if (v == std::round(v)) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
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
  return j;
}

std::string render_sheet(const Sheet& s, SheetFormat f) {
  switch (f) {
    case SheetFormat::table:
      return render_table(s);
    case SheetFormat::md:
      return render_md(s);
    case SheetFormat::csv:
      return render_csv(s);
    case SheetFormat::json:
      return to_json(s).dump(2) + "\n";
    case SheetFormat::html:
      return render_html(s);
    case SheetFormat::xlsx:
      break;
  }
  throw Error("render_sheet: xlsx is a binary format, use write_sheet_xlsx");
}

}  // namespace mlbench::sizing
