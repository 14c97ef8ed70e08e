// `mlbench compare BASE OTHER...` and `mlbench compare --fleet DIR|FILES...`.
#include <iostream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "reports/compare.hpp"
#include "reports/fleet.hpp"
#include "reports/html.hpp"

namespace mlbench::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> inputs;
  bool fleet = false;
  std::string format = "table";
  std::string output;
  double threshold_pct = 5;
  bool no_fail = false;
};

std::string render_tables(const std::vector<Table>& tables, const std::vector<std::string>& notes,
                          const std::string& format, bool colour) {
  std::string out;
  for (const auto& t : tables) out += (format == "md" ? to_markdown(t) : to_text(t, colour)) + "\n";
  for (const auto& n : notes) out += "note: " + n + "\n";
  return out;
}

// CSV holds data only: the notes go to stderr.
void print_notes(const std::vector<std::string>& notes) {
  for (const auto& n : notes) std::cerr << "mlbench: note: " << n << "\n";
}

int run_compare(const CompareFlags& f) {
  if (!f.output.empty()) check_writable(f.output);
  double threshold = f.threshold_pct / 100;
  bool colour = f.output.empty() && stdout_wants_colour();
  if (f.fleet) {
    std::vector<UnreadableReport> unreadable;
    auto reports = load_readable_reports(f.inputs, unreadable);
    for (const auto& u : unreadable)
      std::cerr << "mlbench: warning: left out, unreadable: " << u.error << "\n";
    FleetOptions opts{threshold};
    auto fleet = analyze_fleet(reports, opts, unreadable);
    std::string text;
    if (f.format == "json") {
      text = fleet_to_json(fleet, opts).dump(2) + "\n";
    } else if (f.format == "html") {
      HtmlPage page{
          fmt::format("mlbench fleet: {} reports", reports.size()), &reports, {}, fleet, threshold, {}};
      text = to_html_page(page);
    } else if (f.format == "csv") {
      text = fleet_csv(fleet);
      print_notes(fleet.notes);
    } else {
      text = render_tables(fleet_tables(fleet), fleet.notes, f.format, colour);
    }
    emit(f.output, text);
    return fleet.has_worse_outlier() && !f.no_fail ? 1 : 0;
  }
  auto reports = load_reports(f.inputs);
  if (reports.size() < 2) throw UsageError("compare needs a base report and at least one other (or --fleet)");
  CompareOptions opts{threshold};
  std::vector<Comparison> comparisons;
  for (std::size_t i = 1; i < reports.size(); ++i)
    comparisons.push_back(compare_reports(reports[0], reports[i], opts));
  bool regression = false;
  for (const auto& c : comparisons) regression = regression || c.has_regression();
  std::string text;
  if (f.format == "json") {
    Json out = Json::array();
    for (const auto& c : comparisons) out.push_back(comparison_to_json(c, opts));
    text =
        Json{{"base", reports[0].file}, {"comparisons", std::move(out)}, {"regression", regression}}.dump(2) +
        "\n";
  } else if (f.format == "html") {
    HtmlPage page{fmt::format("mlbench compare: {} against {}", reports[0].file,
                              reports.size() - 1 == 1 ? reports[1].file
                                                      : fmt::format("{} reports", reports.size() - 1)),
                  &reports,
                  comparisons,
                  std::nullopt,
                  threshold,
                  {}};
    text = to_html_page(page);
  } else if (f.format == "csv") {
    for (const auto& c : comparisons) {
      text += comparison_csv(c, text.empty());
      print_notes(c.notes);
    }
  } else {
    for (const auto& c : comparisons) {
      text += render_tables(comparison_tables(c), c.notes, f.format, colour);
      std::string summary =
          fmt::format("{} regression(s), {} improvement(s), {} within noise, {} status change(s)",
                      c.count(Verdict::regression), c.count(Verdict::improvement), c.count(Verdict::noise),
                      c.status_changes.size());
      text += summary + "\n\n";
    }
  }
  emit(f.output, text);
  return regression && !f.no_fail ? 1 : 0;
}

}  // namespace

void add_compare_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare reports: BASE OTHER... (regressions beyond noise), or --fleet DIR|FILES... (outliers)");
  auto flags = std::make_shared<CompareFlags>();
  cmd->add_option("reports", flags->inputs,
                  "Report files (the first is the base), or folders of reports with --fleet")
      ->required();
  cmd->add_flag("--fleet", flags->fleet, "Find outlier machines/GPUs across >= 3 reports (robust z-score)");
  cmd->add_option("--format", flags->format, "table | md | csv | json | html")
      ->check(CLI::IsMember({"table", "md", "csv", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "Write to this file (atomically) instead of stdout");
  cmd->add_option("--threshold", flags->threshold_pct,
                  "Percent change that counts (a regression, or a fleet member this far below the median)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_flag("--no-fail", flags->no_fail, "Exit 0 even when a regression or a bad outlier is found");
  cmd->callback([&action, flags] { action = [flags] { return run_compare(*flags); }; });
}

}  // namespace mlbench::cli
