// The HTML report's fleet (reports/html_parts.hpp): its verdict and outliers counted first, the outliers as
// dots among the charts, its tables below.
#include <fmt/format.h>

#include "reports/html_parts.hpp"
#include "reports/render.hpp"
#include "reports/summary.hpp"
#include "reports/svg.hpp"

namespace mlbench::html {
namespace {

constexpr std::size_t kMaxOutlierRows = 20;

}  // namespace

std::string fleet_verdict_html(const FleetAnalysis& f) {
  std::size_t worse = 0;
  for (const auto& g : f.groups) {
    for (const auto& m : g.members) worse += m.outlier && m.worse ? 1 : 0;
  }
  const Tone tone = f.fails() ? Tone::bad : Tone::good;
  return verdict_line(tone, fleet_verdict(f)) +
         verdict_line(tone,
                      fmt::format("{} outlier(s) over {} reports: {} worse than the fleet median, {} better",
                                  f.outliers(), f.reports, worse, f.outliers() - worse));
}

std::string fleet_chart_html(const FleetAnalysis& f, double threshold) {
  std::vector<DotRow> rows;
  for (const auto& g : f.groups) {
    if (g.outliers() == 0) continue;
    DotRow row{fmt::format("{} {} {}", g.probe, format_params(g.params), g.metric), {}};
    for (const auto& m : g.members) {
      row.dots.push_back(DotRow::Dot{100 * m.deviation, m.outlier, m.worse,
                                     m.device.empty() ? m.host : m.host + " " + m.device});
    }
    rows.push_back(std::move(row));
    if (rows.size() == kMaxOutlierRows) break;
  }
  if (rows.empty()) return "";
  return svg_dot_rows("Fleet outliers: each dot a machine or GPU", rows, 100 * threshold);
}

std::string fleet_tables_html(const FleetAnalysis& f) {
  return render(fleet_tables(f), f.notes, Format::html);
}

}  // namespace mlbench::html
