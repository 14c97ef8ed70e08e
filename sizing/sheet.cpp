#include "sizing/sheet.hpp"

#include <cmath>

#include <fmt/format.h>

#include "reports/table.hpp"

namespace mlbench::sizing {
namespace {

using Json = nlohmann::json;

Json line_json(const SheetLine& l) {
  return {{"section", l.section}, {"item", l.item},     {"quantity", l.quantity}, {"unit", l.unit},
          {"spec", l.spec},       {"driver", l.driver}, {"headroom", l.headroom}, {"source", l.source}};
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
  d.list_title = "Warnings";
  d.list = s.warnings;
  d.json = to_json(s);
  return d;
}

Table sheet_data(const Sheet& s) {
  Table t{
      "", {"section", "item", "quantity", "unit", "specification", "driven_by", "headroom", "source"}, {}};
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows) t.rows.push_back(line_cells(l));
  for (const auto& a : s.assumptions)
    t.rows.push_back({Cell{"Assumptions"}, Cell{a.name}, Cell{}, Cell{a.value}, Cell{}, Cell{a.basis}, Cell{},
                      Cell{a.source}});
  return t;
}

std::string render_sheet(const Sheet& s, Format f) {
  if (f != Format::csv) return render(sheet_document(s), f);
  Document data;
  data.tables = {sheet_data(s)};
  return render(data, f);
}

}  // namespace mlbench::sizing
