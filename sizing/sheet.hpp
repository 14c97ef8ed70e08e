// The procurement sizing sheet: one line per item (quantity, unit specification, what drives it as a formula
// with its numbers, the headroom applied, and whether its inputs were measured, transferred or assumed), the
// totals and the assumptions. Every format is written from one Document of Tables
// (reports/render.hpp): the text formats through render(), the XLSX workbook (libxlsxwriter) cell by cell.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/render.hpp"
#include "sizing/formula.hpp"

namespace mlbench::sizing {

struct SheetLine {
  std::string section;  // Compute, Memory, Storage, Network, Power, Host, Cost
  std::string item;
  double quantity = 0;
  std::string unit;
  std::string spec;      // unit specification
  std::string driver;    // the formula with its numbers
  std::string headroom;  // how the headroom was applied to this line
  std::string source;    // measured / transferred / assumed / workload / catalog
  // Where the driver shows a computed formula (sizing/formula.hpp): that formula in its terms' symbols and
  // the terms' values; evaluated, it gives quantity x formula_per (bytes for a quantity in GB: 1e9).
  std::string formula;
  std::vector<Term> terms;
  double formula_per = 1;
};

struct SheetAssumption {
  std::string name, value, source, basis;
};

struct Sheet {
  std::string title;
  std::string workload;  // name and file
  std::string hardware;  // node template and why it was chosen
  std::string mode;      // forward (N nodes) or inverse (deadline/latency -> N)
  double headroom = 0.25;
  std::vector<SheetLine> lines;
  std::vector<SheetLine> totals;
  std::vector<SheetAssumption> assumptions;
  std::vector<std::string> warnings;
  nlohmann::json figures = nlohmann::json::object();  // key numbers in SI for machines and tests
};

// A quantity as the sheet prints it: whole numbers plainly, others with 3 significant figures.
std::string format_quantity(double v);

nlohmann::json to_json(const Sheet& s);
// The sheet as a page: the title and its facts (workload, hardware, planning, headroom); the bill of
// materials (the lines, then the totals; in text grouped by section, the driver, headroom and source beneath
// each line); the assumptions; the warnings as the list; `json` = to_json(s).
Document sheet_document(const Sheet& s);
// The data for spreadsheets (Format::csv): the bill of materials' columns, one row per line and total, then
// one per assumption (section "Assumptions"; name as item, value as unit, basis as driven_by).
Table sheet_data(const Sheet& s);
// The sheet in a text format: sheet_data for csv, else sheet_document, through render().
std::string render_sheet(const Sheet& s, Format f);
// The bytes of a workbook with a bill-of-materials sheet and an assumptions sheet, from sheet_document(s);
// throws Error when this build has no libxlsxwriter or libxlsxwriter fails.
std::string sheet_xlsx(const Sheet& s);
bool xlsx_supported();

}  // namespace mlbench::sizing
