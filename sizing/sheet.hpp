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
#include "sizing/headroom.hpp"

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
  // The workbook (sheet_xlsx) keeps the arithmetic live: a priced line carries its unit price (currency per
  // unit of the quantity) and gets a cost cell = quantity x price; a line with `live` writes its quantity as
  // that spreadsheet formula, where {Item} stands for that line's quantity cell and {Item:cost} for its cost
  // cell (lines first, then totals), so a changed price or count recomputes the totals.
  double unit_price = 0;
  std::string live;
};

struct SheetAssumption {
  std::string name, value, source, basis;  // value: as the text formats show it ("93 %", "6,000")
  double quantity = 0;                     // the value as a number in `unit`, for the CSV (0.93, 6000)
  std::string unit;                        // "fraction", "W", "h", ...
};

struct Sheet {
  std::string title;
  std::string workload;  // name and file
  std::string hardware;  // node template and why it was chosen
  std::string mode;      // forward (N nodes) or inverse (deadline/latency -> N)
  double headroom = kDefaultHeadroom;
  std::vector<SheetLine> lines;
  std::vector<SheetLine> totals;
  std::vector<SheetAssumption> assumptions;
  std::vector<std::string> warnings;
  std::vector<Table> tables;  // side tables after the bill of materials (the local RAID levels)
  nlohmann::json figures = nlohmann::json::object();  // key numbers in SI for machines and tests
};

// A quantity as the sheet prints it, for a procurement reader: thousands separators and no scientific
// notation below 1e15 (763,000,000), whole numbers plainly, others with 3 significant figures down to a
// millionth; below that "< 0.000001".
std::string format_quantity(double v);
// `v` with thousands separators and `decimals` decimals: with_separators(2820.4, 0) = "2,820".
std::string with_separators(double v, int decimals = 0);
// Bytes in decimal units, as drives and DIMMs are sold and as the sheet's GB/TB quantities are: "5.68 TB".
std::string decimal_bytes(double bytes);
// The sheet's lines and totals in sensible units: a duration under a day in hours and one of a day or more in
// days, an energy under 1 MWh in kWh; the quantity, its formula divisor and its unit price follow the unit.
void use_readable_units(Sheet& s);
// The lines grouped by section in the sheet's order (Compute, Memory, Storage, Network, Power, Host, Cost),
// each section once, the lines of a section in the order they were added.
void group_sections(Sheet& s);

nlohmann::json to_json(const Sheet& s);
// The sheet as a page: the title and its facts (workload, hardware, planning, headroom); the bill of
// materials (the lines, then the totals; in text grouped by section, the driver, headroom and source beneath
// each line); the assumptions; the warnings as the list; `json` = to_json(s).
Document sheet_document(const Sheet& s);
// The data for spreadsheets (Format::csv), every quantity the exact number (no separators, no "%") with its
// unit in the unit column: the bill of materials' columns, one row per line and total; then one per
// assumption (section "Assumptions"; name as item, its value in quantity and unit, basis as driven_by); then
// one per number of each side table (section: the table's title before ':', "Local NVMe RAID levels"; item:
// the row's name and the column, "RAID-5 usable"; driven_by: the row's last column).
Table sheet_data(const Sheet& s);
// The sheet in any format of OutputKind::sizing_sheet (reports/formats.hpp): the workbook's bytes for xlsx
// (sheet_xlsx), sheet_data for csv, else sheet_document, through render().
std::string render_sheet(const Sheet& s, Format f);
// Before planning: UsageError when render_sheet cannot write `f` where asked (`to_file`: -o FILE given): xlsx
// is a binary workbook, written to a file only, and needs a build with libxlsxwriter.
void check_sheet_output(Format f, bool to_file);
// The bytes of a workbook with a bill-of-materials sheet and an assumptions sheet, from sheet_document(s);
// throws Error when this build has no libxlsxwriter or libxlsxwriter fails.
std::string sheet_xlsx(const Sheet& s);
bool xlsx_supported();

}  // namespace mlbench::sizing
