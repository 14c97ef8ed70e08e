// XLSX writer of the sizing sheet (libxlsxwriter), from the same Document as the text formats: a "Bill of
// materials" sheet with formatted cells (bold header, a number format per unit — counts as integers, money
// with separators — wrapped formula text, frozen header row, autofilter), then the side tables, and an
// "Assumptions" sheet with every calibration figure, its source and basis, then the warnings.
// A procurement reader edits a price or a count and expects the totals to follow, so the money is live:
// each priced line has a unit price and a cost cell (= quantity x unit price), and every line with a `live`
// formula (capital, energy cost, cost per run, the totals) is written as that formula over the item cells,
// with the planner's value cached for readers that do not recalculate. Built only when libxlsxwriter was
// found.
#include <fmt/format.h>

#include "base/error.hpp"
#include "mlbench_config.hpp"
#include "sizing/sheet.hpp"

#if MLBENCH_HAS_XLSX
#include <unistd.h>
#include <xlsxwriter.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#endif

namespace mlbench::sizing {

#if MLBENCH_HAS_XLSX
namespace {

#define MLBENCH_CHECK_XLSX(call)                                                         \
  do {                                                                                   \
    lxw_error mlbench_xlsx_rc_ = (call);                                                 \
    if (mlbench_xlsx_rc_ != LXW_NO_ERROR)                                                \
      ::mlbench::throw_call_error(                                                       \
          #call, __FILE__, __LINE__,                                                     \
          fmt::format("libxlsxwriter error {} ({})", static_cast<int>(mlbench_xlsx_rc_), \
                      lxw_strerror(mlbench_xlsx_rc_)));                                  \
  } while (0)

// Owns the workbook: closes it (which writes the file) exactly once; a workbook never closed is still freed.
class Workbook {
 public:
  explicit Workbook(const std::string& path) : wb_(workbook_new(path.c_str())) {
    if (!wb_) throw Error(fmt::format("workbook_new({}) failed: cannot create the XLSX file", path));
  }
  ~Workbook() {
    if (wb_) workbook_close(wb_);
  }
  Workbook(const Workbook&) = delete;
  Workbook& operator=(const Workbook&) = delete;
  lxw_workbook* get() const { return wb_; }
  void close() {
    lxw_workbook* wb = wb_;
    wb_ = nullptr;
    MLBENCH_CHECK_XLSX(workbook_close(wb));
  }

 private:
  lxw_workbook* wb_;
};

lxw_worksheet* add_sheet(lxw_workbook* wb, const char* name) {
  lxw_worksheet* ws = workbook_add_worksheet(wb, name);
  if (!ws) throw Error(fmt::format("workbook_add_worksheet({}) failed", name));
  return ws;
}

// libxlsxwriter writes only to a path: a private temp file, removed when done, holds the workbook until it is
// read back, so the caller writes the bytes through the one atomic writer.
class TempFile {
 public:
  TempFile() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "mlbench-sheet.XXXXXX").string();
    int fd = mkstemp(tmpl.data());
    if (fd < 0)
      throw Error(fmt::format("cannot create a temporary file for the workbook: {}", std::strerror(errno)));
    ::close(fd);
    path_ = tmpl;
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Column widths in characters, by column; columns past the list get the last width.
void set_widths(lxw_worksheet* ws, const std::vector<double>& widths, std::size_t columns) {
  for (std::size_t c = 0; c < columns; ++c) {
    auto col = static_cast<lxw_col_t>(c);
    MLBENCH_CHECK_XLSX(worksheet_set_column(ws, col, col, widths[std::min(c, widths.size() - 1)], nullptr));
  }
}

void write_header(lxw_worksheet* ws, lxw_row_t row, const Table& t, lxw_format* head) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    MLBENCH_CHECK_XLSX(
        worksheet_write_string(ws, row, static_cast<lxw_col_t>(c), t.columns[c].c_str(), head));
}

// One row of text cells, but for column `skip` (where the caller writes a number).
void write_texts(lxw_worksheet* ws, lxw_row_t row, const std::vector<Cell>& cells, lxw_format* text,
                 std::size_t skip = static_cast<std::size_t>(-1)) {
  for (std::size_t c = 0; c < cells.size(); ++c)
    if (c != skip)
      MLBENCH_CHECK_XLSX(
          worksheet_write_string(ws, row, static_cast<lxw_col_t>(c), cells[c].text.c_str(), text));
}

// The number format of a quantity in `unit`: counts as integers, money with separators and cents, fractions
// with three decimals, FLOP counts in scientific notation, the rest with two decimals.
std::string number_format(const std::string& unit, const std::string& currency) {
  static const std::set<std::string> kCounts{"nodes",  "GPUs",           "switches", "links",
                                             "drives", "racks",          "NICs",     "cores",
                                             "ports",  "instances/node", "layouts",  "checkpoints"};
  if (kCounts.count(unit)) return "#,##0";
  if (unit == currency) return "#,##0.00";
  if (unit == "fraction") return "0.000";
  if (unit == "FLOP") return "0.00E+00";
  return "#,##0.00";
}

// Formats by number format and weight, made once per workbook.
class Formats {
 public:
  explicit Formats(lxw_workbook* wb) : wb_(wb) {}
  lxw_format* get(const std::string& num_format, bool bold) {
    auto& f = made_[{num_format, bold}];
    if (!f) {
      f = workbook_add_format(wb_);
      format_set_num_format(f, num_format.c_str());
      format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
      if (bold) format_set_bold(f);
    }
    return f;
  }

 private:
  lxw_workbook* wb_;
  std::map<std::pair<std::string, bool>, lxw_format*> made_;
};

constexpr lxw_col_t kQuantityCol = 2;

// "C12": a cell of the bill of materials in A1 notation (row 0-based).
std::string cell_name(lxw_col_t col, lxw_row_t row) {
  return fmt::format("{}{}", static_cast<char>('A' + col), row + 1);
}

// `live` with {Item} and {Item:cost} replaced by the cells of those lines.
std::string resolve_live(const std::string& live, const std::map<std::string, lxw_row_t>& rows,
                         lxw_col_t cost_col) {
  std::string out = "=";
  std::size_t at = 0;
  while (at < live.size()) {
    auto open = live.find('{', at);
    if (open == std::string::npos) break;
    auto close = live.find('}', open);
    if (close == std::string::npos) throw Error(fmt::format("sheet formula '{}': unclosed '{{'", live));
    out += live.substr(at, open - at);
    std::string ref = live.substr(open + 1, close - open - 1);
    bool cost = ref.size() > 5 && ref.ends_with(":cost");
    if (cost) ref.resize(ref.size() - 5);
    auto it = rows.find(ref);
    if (it == rows.end()) throw Error(fmt::format("sheet formula '{}': no line '{}'", live, ref));
    out += cell_name(cost ? cost_col : kQuantityCol, it->second);
    at = close + 1;
  }
  return out + live.substr(at);
}

}  // namespace

bool xlsx_supported() { return true; }

std::string sheet_xlsx(const Sheet& s) {
  const Document doc = sheet_document(s);
  const Table& lines = doc.tables.front();
  const Table& assumptions = doc.tables.back();
  TempFile file;
  Workbook book(file.path());
  lxw_workbook* wb = book.get();
  lxw_format* title = workbook_add_format(wb);
  format_set_bold(title);
  format_set_font_size(title, 14);
  lxw_format* head = workbook_add_format(wb);
  format_set_bold(head);
  format_set_bg_color(head, 0xDDEBF7);
  format_set_border(head, LXW_BORDER_THIN);
  lxw_format* text = workbook_add_format(wb);
  format_set_text_wrap(text);
  format_set_align(text, LXW_ALIGN_VERTICAL_TOP);
  Formats formats(wb);
  std::string currency;  // the unit of the cost lines
  for (const auto& l : s.lines)
    if (l.section == "Cost") currency = l.unit;

  lxw_worksheet* bom = add_sheet(wb, "Bill of materials");
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 0, 0, doc.title.c_str(), title));
  lxw_row_t row = 1;
  for (const auto& fact : doc.facts)
    MLBENCH_CHECK_XLSX(worksheet_write_string(bom, row++, 0, fact.c_str(), nullptr));
  const lxw_row_t header = row + 1;
  Table priced = lines;
  priced.columns.insert(priced.columns.end(), {"Unit price", "Cost"});
  const auto price_col = static_cast<lxw_col_t>(lines.columns.size());
  const auto cost_col = static_cast<lxw_col_t>(price_col + 1);
  write_header(bom, header, priced, head);
  set_widths(bom, {11, 30, 14, 10, 40, 80, 22, 12, 14, 16}, priced.columns.size());
  // The rows of the lines, then of the totals; a name a total shares with a line means the line.
  std::vector<const SheetLine*> items;
  for (const auto* rows : {&s.lines, &s.totals})
    for (const auto& l : *rows) items.push_back(&l);
  std::map<std::string, lxw_row_t> row_of;
  for (std::size_t i = items.size(); i-- > 0;)
    row_of[items[i]->item] = header + 1 + static_cast<lxw_row_t>(i);
  row = header + 1;
  for (std::size_t i = 0; i < items.size(); ++i, ++row) {
    const SheetLine& l = *items[i];
    const bool is_total = i >= s.lines.size();
    lxw_format* num = formats.get(number_format(l.unit, currency), is_total);
    write_texts(bom, row, lines.rows[i], text, kQuantityCol);
    if (l.live.empty()) {
      MLBENCH_CHECK_XLSX(worksheet_write_number(bom, row, kQuantityCol, l.quantity, num));
    } else {
      MLBENCH_CHECK_XLSX(worksheet_write_formula_num(
          bom, row, kQuantityCol, resolve_live(l.live, row_of, cost_col).c_str(), num, l.quantity));
    }
    if (l.unit_price > 0) {
      lxw_format* money = formats.get("#,##0.00", is_total);
      MLBENCH_CHECK_XLSX(worksheet_write_number(bom, row, price_col, l.unit_price, money));
      auto cost = fmt::format("={}*{}", cell_name(kQuantityCol, row), cell_name(price_col, row));
      MLBENCH_CHECK_XLSX(
          worksheet_write_formula_num(bom, row, cost_col, cost.c_str(), money, l.quantity * l.unit_price));
    }
  }
  worksheet_freeze_panes(bom, header + 1, 0);
  MLBENCH_CHECK_XLSX(
      worksheet_autofilter(bom, header, 0, row - 1, static_cast<lxw_col_t>(priced.columns.size() - 1)));
  for (std::size_t t = 1; t + 1 < doc.tables.size(); ++t) {
    const Table& side = doc.tables[t];
    ++row;
    MLBENCH_CHECK_XLSX(worksheet_write_string(bom, row++, 0, side.title.c_str(), title));
    write_header(bom, row++, side, head);
    for (const auto& cells : side.rows) write_texts(bom, row++, cells, text);
  }

  lxw_worksheet* as = add_sheet(wb, "Assumptions");
  write_header(as, 0, assumptions, head);
  set_widths(as, {36, 18, 12, 100}, assumptions.columns.size());
  row = 1;
  for (const auto& cells : assumptions.rows) write_texts(as, row++, cells, text);
  for (const auto& w : doc.list) {
    MLBENCH_CHECK_XLSX(worksheet_write_string(as, row, 0, "Warning", head));
    MLBENCH_CHECK_XLSX(worksheet_write_string(as, row, 3, w.c_str(), text));
    ++row;
  }
  worksheet_freeze_panes(as, 1, 0);
  book.close();
  std::ifstream in(file.path(), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw Error(fmt::format("cannot read back the workbook written to {}", file.path()));
  return bytes.str();
}

#else

bool xlsx_supported() { return false; }

std::string sheet_xlsx(const Sheet&) {
  throw UsageError("this mlbench was built without libxlsxwriter: use --format csv, md, json or html");
}

#endif

}  // namespace mlbench::sizing
