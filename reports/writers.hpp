// The one call a command makes to write what it computed: the model and the format in, the output out. Each
// kind of output (reports/formats.hpp) has its renderer here, and each renderer is the one place that maps
// the formats its kind carries (kFormats) to a writer: the table writers (reports/render.hpp), the HTML page
// (reports/html.hpp), Prometheus (reports/prometheus.hpp) and fio's JSON (reports/fio_json.hpp). A format
// the kind does not carry is a UsageError from format_for(), before anything is written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/check.hpp"
#include "reports/compare.hpp"
#include "reports/fleet.hpp"
#include "reports/formats.hpp"
#include "reports/inputs.hpp"

namespace mlbench {

// How text tables are laid out: colour (a terminal's), and the terminal's width (0: no limit; a file keeps
// every cell whole, for the reader and the tools that search it).
struct TextStyle {
  bool colour = false;
  std::size_t width = 0;
};

// The output, and what a data-only format (CSV) leaves out of it — the notes ("note: ...") and the verdict —
// for the command to write on stderr, each line after "mlbench: ".
struct Rendered {
  std::string text;
  std::vector<std::string> aside;
};

// A report (Content::report): html, prometheus or fio. `name` is the report as the user named it (the
// page's title, fio's origin); a folder of reports is one page of them all, and its first report otherwise.
Rendered render_report(const std::vector<NamedReport>& reports, const std::string& name, Format f);
// Each comparison of the base (reports[0]) with another (Content::compare).
Rendered render_compare(const std::vector<NamedReport>& reports, const std::vector<Comparison>& comparisons,
                        const CompareOptions& opts, Format f, const TextStyle& style);
// A fleet's analysis (Content::fleet).
Rendered render_fleet(const std::vector<NamedReport>& reports, const FleetAnalysis& fleet,
                      const FleetOptions& opts, Format f, const TextStyle& style);
// A report's acceptance check (Content::check); `reports` holds the one report checked.
Rendered render_check(const std::vector<NamedReport>& reports, const CheckResult& result, Format f,
                      const TextStyle& style);

}  // namespace mlbench
