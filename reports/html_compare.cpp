// The HTML report's comparison (reports/html_parts.hpp): its verdict and what went wrong first, its full
// tables below.
#include <algorithm>

#include <fmt/format.h>

#include "reports/html_parts.hpp"
#include "reports/render.hpp"

namespace mlbench::html {
namespace {

// A comparison's regressions (the rows of its full table that are regressions) and its status changes, for
// the summary: what went wrong, before the charts and the full table.
std::string what_went_wrong(const Comparison& c) {
  const std::vector<Table> tables = comparison_tables(c);
  Table regressions = tables.front();
  const auto column = std::find(regressions.columns.begin(), regressions.columns.end(), "verdict");
  const auto verdict = static_cast<std::size_t>(column - regressions.columns.begin());
  std::erase_if(regressions.rows, [verdict](const std::vector<Cell>& row) {
    return verdict >= row.size() || row[verdict].text != to_string(Verdict::regression);
  });
  std::string out;
  if (!regressions.rows.empty()) {
    regressions.title =
        fmt::format("{} against {}: {} regression(s)", c.other_file, c.base_file, regressions.rows.size());
    out += to_html(regressions);
  }
  const auto status =
      std::find_if(tables.begin(), tables.end(), [](const Table& t) { return t.title == "status changes"; });
  if (status != tables.end()) {
    Table t = *status;
    t.title = fmt::format("{} against {}: status changes", c.other_file, c.base_file);
    out += to_html(t);
  }
  return out;
}

}  // namespace

std::string compare_verdict_html(const Comparison& c) {
  return verdict_line(c.has_regression() ? Tone::bad : Tone::good,
                      fmt::format("{} against {}: {}", c.other_file, c.base_file, compare_verdict(c))) +
         what_went_wrong(c);
}

std::string compare_tables_html(const Comparison& c) {
  return render(comparison_tables(c), c.notes, Format::html);
}

}  // namespace mlbench::html
