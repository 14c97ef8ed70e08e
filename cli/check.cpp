// `mlbench check REPORT [--expect FILE]`: acceptance pass/warn/fail.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/gpu_catalog.hpp"
#include "bench/registry.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/suggest.hpp"
#include "reports/check.hpp"
#include "reports/html.hpp"
#include "reports/inputs.hpp"
#include "reports/render.hpp"

namespace mlbench::cli {
namespace {

struct CheckFlags {
  std::string report;
  std::string expect;
  std::string format = "table";
  std::string output;
  bool no_fail = false;
  bool allow_missing = false;
};

// "did you mean 'storage.io'?" when a known name is close to `given`, else the known names.
std::string hint(const std::string& given, const std::vector<std::string>& known) {
  const std::string closest = closest_name(given, known);
  return closest.empty() ? fmt::format("known: {}", fmt::join(known, ", "))
                         : fmt::format("did you mean '{}'?", closest);
}

// Every rule of a thresholds file names a probe of the registry and a metric that probe declares
// (ProbeInfo::metrics): a misspelt one would match nothing and pass as "not measured" under --allow-missing.
void check_names(const ExpectationSet& rules, const std::string& file) {
  const Registry registry = builtin_registry();
  for (const auto& e : rules.rules) {
    const Probe* probe = registry.find(e.probe);
    if (probe == nullptr)
      throw UsageError(
          fmt::format("{}: unknown probe '{}' ({})", file, e.probe, hint(e.probe, registry.ids())));
    const ProbeInfo info = probe->info();
    const std::vector<std::string> metrics(info.metrics.begin(), info.metrics.end());
    if (std::find(metrics.begin(), metrics.end(), e.metric) == metrics.end()) {
      throw UsageError(fmt::format("{}: unknown metric '{}' of {} ({})", file, e.metric, e.probe,
                                   hint(e.metric, metrics)));
    }
  }
}

int run_check(const CheckFlags& f) {
  if (!f.output.empty()) check_writable(f.output);
  auto reports = load_reports({f.report});
  const Report& report = reports.front().report;
  ExpectationSet rules =
      f.expect.empty() ? catalog_expectations(report, gpu_catalog()) : load_expectations(f.expect);
  if (!f.expect.empty()) check_names(rules, f.expect);
  CheckResult result = check_report(report, rules, CheckOptions{.allow_missing = f.allow_missing});
  result.file = f.report;
  const Format format = *format_from_string(f.format);
  std::string text;
  if (format == Format::html) {
    HtmlPage page{"mlbench check: " + f.report, &reports, {}, std::nullopt, 0.05, result};
    text = to_html_page(page);
  } else {
    Document doc;
    doc.tables = {format == Format::csv ? check_data(result) : check_table(result)};
    // On a terminal the table fits its width; in a file every cell stays whole (as compare's tables).
    if (f.output.empty() && ::isatty(STDOUT_FILENO) == 1) doc.tables[0].width = terminal_width(STDOUT_FILENO);
    doc.json = check_to_json(result);
    doc.closing = check_verdict(result);
    // CSV holds data only: the verdict goes to stderr, as compare --fleet's.
    if (format == Format::csv) std::cerr << "mlbench: " << doc.closing << "\n";
    text = render(doc, format, f.output.empty() && stdout_wants_colour());
  }
  emit(f.output, text);
  return result.failed() && !f.no_fail ? 1 : 0;
}

}  // namespace

void add_check_command(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("check", "Pass/warn/fail a report against the GPU catalog or a thresholds file");
  auto flags = std::make_shared<CheckFlags>();
  cmd->add_option("report", flags->report, "The report to check")->required();
  cmd->add_option("--expect", flags->expect,
                  "Thresholds file (configs/acceptance/*.yaml); default: catalog peak x efficiency floor");
  cmd->add_option("--format", flags->format, fmt::format("{}", fmt::join(format_names(), " | ")))
      ->check(CLI::IsMember(format_names()))
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "Write to this file (atomically) instead of stdout");
  cmd->add_flag("--no-fail", flags->no_fail, "Exit 0 even when a check fails");
  cmd->add_flag("--allow-missing", flags->allow_missing,
                "A rule with no measured result (skipped, or no matching result) warns instead of failing");
  cmd->callback([&action, flags] { action = [flags] { return run_check(*flags); }; });
}

}  // namespace mlbench::cli
