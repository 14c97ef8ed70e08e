#include "reports/writers.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "reports/fio_json.hpp"
#include "reports/html.hpp"
#include "reports/prometheus.hpp"
#include "reports/render.hpp"

namespace mlbench {
namespace {

// Every table laid out for the terminal.
void fit(Document& doc, const TextStyle& style) {
  for (auto& t : doc.tables) t.width = style.width;
}

// A renderer reached with a format its kind does not carry: the same refusal as format_for's.
[[noreturn]] void refuse(Content k, Format f) {
  format_for(k, to_string(f));
  throw Error(fmt::format("{} has no writer for {}", to_string(k), to_string(f)));
}

}  // namespace

Rendered render_report(const std::vector<NamedReport>& reports, const std::string& name, Format f) {
  if (!carries(f, Content::report)) refuse(Content::report, f);
  if (f == Format::prometheus) return {to_prometheus(reports.front()), {}};
  if (f == Format::fio) return {to_fio_json(reports.front().report, name).dump(2) + "\n", {}};
  if (f == Format::html)
    return {to_html_page(HtmlPage{"mlbench report: " + name, &reports, {}, std::nullopt, 0.05, std::nullopt}),
            {}};
  refuse(Content::report, f);
}

Rendered render_compare(const std::vector<NamedReport>& reports, const std::vector<Comparison>& comparisons,
                        const CompareOptions& opts, Format f, const TextStyle& style) {
  if (!carries(f, Content::compare)) refuse(Content::compare, f);
  Rendered out;
  if (f == Format::html) {
    HtmlPage page{fmt::format("mlbench compare: {} against {}", reports[0].file,
                              reports.size() - 1 == 1 ? reports[1].file
                                                      : fmt::format("{} reports", reports.size() - 1)),
                  &reports,
                  comparisons,
                  std::nullopt,
                  opts.threshold,
                  {}};
    out.text = to_html_page(page);
  } else if (f == Format::json) {
    Json all = Json::array();
    bool regression = false;
    for (const auto& c : comparisons) {
      all.push_back(comparison_to_json(c, opts));
      regression = regression || c.has_regression();
    }
    Document doc;
    doc.json = Json{{"base", reports[0].file}, {"comparisons", std::move(all)}, {"regression", regression}};
    out.text = render(doc, f);
  } else if (f == Format::csv) {
    Document doc;
    for (const auto& c : comparisons) {
      doc.tables.push_back(comparison_data(c));
      for (const auto& n : c.notes) out.aside.push_back("note: " + n);
    }
    out.text = render(doc, f);
  } else {
    for (const auto& c : comparisons) {
      Document doc;
      doc.tables = comparison_tables(c);
      fit(doc, style);
      doc.notes = c.notes;
      doc.closing = compare_verdict(c);
      out.text += render(doc, f, style.colour) + "\n";
    }
  }
  return out;
}

Rendered render_fleet(const std::vector<NamedReport>& reports, const FleetAnalysis& fleet,
                      const FleetOptions& opts, Format f, const TextStyle& style) {
  if (!carries(f, Content::fleet)) refuse(Content::fleet, f);
  Rendered out;
  if (f == Format::html) {
    HtmlPage page{
        fmt::format("mlbench fleet: {} reports", reports.size()), &reports, {}, fleet, opts.threshold, {}};
    out.text = to_html_page(page);
    return out;
  }
  Document doc;
  doc.tables = f == Format::csv ? std::vector<Table>{fleet_data(fleet)} : fleet_tables(fleet);
  fit(doc, style);
  doc.notes = fleet.notes;
  doc.closing = fleet_verdict(fleet);
  doc.json = fleet_to_json(fleet, opts);
  if (f == Format::csv) {
    for (const auto& n : fleet.notes) out.aside.push_back("note: " + n);
    out.aside.push_back(doc.closing);
  }
  out.text = render(doc, f, style.colour);
  // A blank line after the last table, as compare's output ends too.
  if (f == Format::text || f == Format::markdown) out.text += "\n";
  return out;
}

Rendered render_check(const std::vector<NamedReport>& reports, const CheckResult& result, Format f,
                      const TextStyle& style) {
  if (!carries(f, Content::check)) refuse(Content::check, f);
  Rendered out;
  if (f == Format::html) {
    out.text =
        to_html_page(HtmlPage{"mlbench check: " + result.file, &reports, {}, std::nullopt, 0.05, result});
    return out;
  }
  Document doc;
  doc.tables = {f == Format::csv ? check_data(result) : check_table(result)};
  fit(doc, style);
  doc.json = check_to_json(result);
  doc.closing = check_verdict(result);
  // CSV holds data only: the verdict goes to stderr, as the fleet's.
  if (f == Format::csv) out.aside.push_back(doc.closing);
  out.text = render(doc, f, style.colour);
  return out;
}

}  // namespace mlbench
