// The procurement sizing sheet: one line per item (quantity, unit specification, what drives it as a formula
// with its numbers, the headroom applied, and whether its inputs were measured, transferred or assumed), the
// totals and the assumptions. Writers: table (terminal), md, csv, json, html and xlsx (libxlsxwriter).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

enum class SheetFormat { table, md, csv, json, html, xlsx };
// UsageError for an unknown name.
SheetFormat sheet_format_from_string(std::string_view name);

// A quantity as the sheet prints it: whole numbers plainly, others with 3 significant figures.
std::string format_quantity(double v);

nlohmann::json to_json(const Sheet& s);
// Text formats (not xlsx).
std::string render_sheet(const Sheet& s, SheetFormat f);
// Workbook with a bill-of-materials sheet and an assumptions/formulas sheet; throws Error when this build has
// no libxlsxwriter or the file cannot be written.
void write_sheet_xlsx(const Sheet& s, const std::filesystem::path& path);
bool xlsx_supported();

}  // namespace mlbench::sizing
