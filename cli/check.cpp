// `mlbench check REPORT [--expect FILE]`: acceptance pass/warn/fail.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/gpu_catalog.hpp"
#include "bench/registry.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "cli/suggest.hpp"
#include "reports/check.hpp"
#include "reports/inputs.hpp"
#include "reports/writers.hpp"

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
  const Format format = format_for(Content::check, f.format);
  if (!f.output.empty()) check_writable(f.output);
  auto reports = load_reports({f.report});
  const Report& report = reports.front().report;
  ExpectationSet rules =
      f.expect.empty() ? catalog_expectations(report, gpu_catalog()) : load_expectations(f.expect);
  if (!f.expect.empty()) check_names(rules, f.expect);
  CheckResult result = check_report(report, rules, CheckOptions{.allow_missing = f.allow_missing});
  result.file = f.report;
  emit_rendered(f.output, render_check(reports, result, format, text_style(f.output)));
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
  cmd->add_option("--format", flags->format, format_help(Content::check))->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "Write to this file (atomically) instead of stdout");
  cmd->add_flag("--no-fail", flags->no_fail, "Exit 0 even when a check fails");
  cmd->add_flag("--allow-missing", flags->allow_missing,
                "A rule with no measured result (skipped, or no matching result) warns instead of failing");
  cmd->callback([&action, flags] { action = [flags] { return run_check(*flags); }; });
}

}  // namespace mlbench::cli
