// The one render path for tables: every command that prints tables (compare, check, the HTML report's tables,
// the sizing sheet) builds a Document and hands it to render() with the Format the user asked for, so a
// field is escaped the same way wherever it appears and a new table format is one case of render(); which
// kinds of output carry it is its row of kFormats (reports/formats.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/formats.hpp"
#include "reports/table.hpp"

namespace mlbench {

// The CSS of every HTML table (render()'s page and the HTML report): value cells (Cell::numeric, class "num")
// are right-aligned and never wrap, so a number stays on one line with its unit; text cells wrap.
inline constexpr std::string_view kHtmlTableStyle =
    "table{border-collapse:collapse;margin:10px 0 18px;font-size:12px}"
    "caption{text-align:left;font-weight:bold;padding:4px 0}\n"
    "th,td{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}th{background:#f2f2f2}"
    "td.num{text-align:right;white-space:nowrap}\n"
    "td.good{color:#1a7f37}td.warn{color:#9a6700;background:#fff8c5}"
    "td.bad{color:#cf222e;font-weight:bold;background:#ffebe9}\n";

// A page of tables. In order: the title and its facts, the tables, the notes, the closing line, the list.
struct Document {
  std::string title;               // a heading over the page; empty for tables alone (HTML: a fragment)
  std::vector<std::string> facts;  // lines under the title ("Workload: ...")
  std::vector<Table> tables;
  std::vector<std::string> notes;  // each written as "note: ..."
  std::string closing;             // a last line (compare's counts)
  std::string list_title;          // a titled list after the rest (the sizing sheet's warnings)
  std::vector<std::string> list;
  nlohmann::json json;  // what Format::json writes: the data behind the tables, in full
};

// text: aligned tables (coloured when `colour`), a blank line after each table that is not last.
// markdown: the title as "#", table titles one level below it ("###" when there is no title).
// csv: data only — the first table's header, then the rows of every table (tables of one shape); titles,
//   facts, notes and the list are left out (a command writes its notes on stderr).
// json: `json`, indented by 2.
// html: a self-contained page when there is a title, else the tables and notes alone (for a larger page).
// The formats that are not tables (kTableKinds does not name them: xlsx, prometheus, fio) throw Error.
std::string render(const Document& d, Format f, bool colour = false);
std::string render(const std::vector<Table>& tables, const std::vector<std::string>& notes, Format f,
                   bool colour = false);

}  // namespace mlbench
