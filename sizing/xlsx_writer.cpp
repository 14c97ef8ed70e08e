// XLSX writer of the sizing sheet (libxlsxwriter), from the same Document as the text formats: a "Bill of
// materials" sheet with formatted cells (bold header, number formats, wrapped formula text, frozen header
// row, autofilter) and an "Assumptions" sheet with every calibration figure, its source and basis, then the
// warnings. Built only when libxlsxwriter was found.
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

// One row of cells: numbers as numbers (`num`), the rest as wrapped text.
void write_row(lxw_worksheet* ws, lxw_row_t row, const std::vector<Cell>& cells, lxw_format* text,
               lxw_format* num) {
  for (std::size_t c = 0; c < cells.size(); ++c) {
    auto col = static_cast<lxw_col_t>(c);
    if (cells[c].number) {
      MLBENCH_CHECK_XLSX(worksheet_write_number(ws, row, col, *cells[c].number, num));
    } else {
      MLBENCH_CHECK_XLSX(worksheet_write_string(ws, row, col, cells[c].text.c_str(), text));
    }
  }
}

}  // namespace

bool xlsx_supported() { return true; }

std::string sheet_xlsx(const Sheet& s) {
  const Document doc = sheet_document(s);
  const Table& lines = doc.tables.at(0);
  const Table& assumptions = doc.tables.at(1);
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
  lxw_format* num = workbook_add_format(wb);
  format_set_num_format(num, "#,##0.00");
  format_set_align(num, LXW_ALIGN_VERTICAL_TOP);
  lxw_format* total = workbook_add_format(wb);
  format_set_bold(total);
  format_set_num_format(total, "#,##0.00");

  lxw_worksheet* bom = add_sheet(wb, "Bill of materials");
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 0, 0, doc.title.c_str(), title));
  lxw_row_t row = 1;
  for (const auto& fact : doc.facts)
    MLBENCH_CHECK_XLSX(worksheet_write_string(bom, row++, 0, fact.c_str(), nullptr));
  const lxw_row_t header = row + 1;
  write_header(bom, header, lines, head);
  set_widths(bom, {11, 30, 14, 10, 40, 80, 22, 12}, lines.columns.size());
  row = header + 1;
  for (std::size_t i = 0; i < lines.rows.size(); ++i) {
    bool is_total = i >= s.lines.size();  // the totals follow the lines
    write_row(bom, row++, lines.rows[i], text, is_total ? total : num);
  }
  worksheet_freeze_panes(bom, header + 1, 0);
  MLBENCH_CHECK_XLSX(
      worksheet_autofilter(bom, header, 0, row - 1, static_cast<lxw_col_t>(lines.columns.size() - 1)));

  lxw_worksheet* as = add_sheet(wb, "Assumptions");
  write_header(as, 0, assumptions, head);
  set_widths(as, {36, 18, 12, 100}, assumptions.columns.size());
  row = 1;
  for (const auto& cells : assumptions.rows) write_row(as, row++, cells, text, num);
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
