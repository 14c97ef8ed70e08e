// XLSX writer of the sizing sheet (libxlsxwriter): a "Bill of materials" sheet with formatted cells (bold
// header, number formats, wrapped formula text, frozen header row, autofilter) and an "Assumptions" sheet
// with every calibration figure, its source and basis. Built only when libxlsxwriter was found.
#include <fmt/format.h>

#include "base/error.hpp"
#include "mlbench_config.hpp"
#include "sizing/sheet.hpp"

#if MLBENCH_HAS_XLSX
#include <xlsxwriter.h>
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

}  // namespace

bool xlsx_supported() { return true; }

void write_sheet_xlsx(const Sheet& s, const std::filesystem::path& path) {
  Workbook book(path.string());
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
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 0, 0, s.title.c_str(), title));
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 1, 0, ("Workload: " + s.workload).c_str(), nullptr));
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 2, 0, ("Hardware: " + s.hardware).c_str(), nullptr));
  MLBENCH_CHECK_XLSX(worksheet_write_string(bom, 3, 0, ("Planning: " + s.mode).c_str(), nullptr));
  MLBENCH_CHECK_XLSX(worksheet_write_string(
      bom, 4, 0, fmt::format("Headroom: {:.2f} per resource", s.headroom).c_str(), nullptr));
  const char* columns[] = {"Section",       "Item",      "Quantity", "Unit",
                           "Specification", "Driven by", "Headroom", "Source"};
  const double widths[] = {11, 30, 14, 10, 40, 80, 22, 12};
  constexpr lxw_row_t kHeader = 6;
  for (lxw_col_t c = 0; c < 8; ++c) {
    MLBENCH_CHECK_XLSX(worksheet_write_string(bom, kHeader, c, columns[c], head));
    MLBENCH_CHECK_XLSX(worksheet_set_column(bom, c, c, widths[c], nullptr));
  }
  lxw_row_t row = kHeader + 1;
  for (const auto* rows : {&s.lines, &s.totals}) {
    bool totals = rows == &s.totals;
    for (const auto& l : *rows) {
      const std::string cells[] = {l.section, l.item, "", l.unit, l.spec, l.driver, l.headroom, l.source};
      for (lxw_col_t c = 0; c < 8; ++c) {
        if (c == 2) {
          MLBENCH_CHECK_XLSX(worksheet_write_number(bom, row, c, l.quantity, totals ? total : num));
        } else {
          MLBENCH_CHECK_XLSX(worksheet_write_string(bom, row, c, cells[c].c_str(), text));
        }
      }
      ++row;
    }
  }
  worksheet_freeze_panes(bom, kHeader + 1, 0);
  MLBENCH_CHECK_XLSX(worksheet_autofilter(bom, kHeader, 0, row - 1, 7));

  lxw_worksheet* as = add_sheet(wb, "Assumptions");
  const char* acols[] = {"Name", "Value", "Source", "Basis / formula"};
  const double awidths[] = {36, 18, 12, 100};
  for (lxw_col_t c = 0; c < 4; ++c) {
    MLBENCH_CHECK_XLSX(worksheet_write_string(as, 0, c, acols[c], head));
    MLBENCH_CHECK_XLSX(worksheet_set_column(as, c, c, awidths[c], nullptr));
  }
  row = 1;
  for (const auto& a : s.assumptions) {
    const std::string cells[] = {a.name, a.value, a.source, a.basis};
    for (lxw_col_t c = 0; c < 4; ++c)
      MLBENCH_CHECK_XLSX(worksheet_write_string(as, row, c, cells[c].c_str(), text));
    ++row;
  }
  for (const auto& w : s.warnings) {
    MLBENCH_CHECK_XLSX(worksheet_write_string(as, row, 0, "Warning", head));
    MLBENCH_CHECK_XLSX(worksheet_write_string(as, row, 3, w.c_str(), text));
    ++row;
  }
  worksheet_freeze_panes(as, 1, 0);
  book.close();
}

#else

bool xlsx_supported() { return false; }

void write_sheet_xlsx(const Sheet&, const std::filesystem::path&) {
  throw UsageError("this mlbench was built without libxlsxwriter: use --format csv, md, json or html");
}

#endif

}  // namespace mlbench::sizing
