// `mlbench compare BASE OTHER...` and `mlbench compare --fleet DIR|FILES...`.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "reports/compare.hpp"
#include "reports/fleet.hpp"
#include "reports/writers.hpp"

namespace mlbench::cli {
namespace {

struct CompareFlags {
  std::vector<std::string> inputs;
  bool fleet = false;
  std::string format = "table";
  std::string output;
  double threshold_pct = 5;
  bool no_fail = false;
  std::vector<std::string> base_runs;  // more runs of the base's machine
  std::string expect;                  // --expect HOSTS|@FILE
};

// With --expect, a folder no node wrote into is a fleet whose every expected host is missing, not bad input.
std::vector<std::string> inputs_with_reports(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& p : inputs) {
    std::error_code ec;
    bool empty_folder = std::filesystem::is_directory(p, ec);
    for (auto it = std::filesystem::directory_iterator(p, ec); empty_folder && !ec && it != decltype(it){};
         it.increment(ec)) {
      empty_folder = !(it->is_regular_file() && it->path().extension() == ".json");
    }
    if (!empty_folder || ec) out.push_back(p);  // the loader names a folder it cannot list
  }
  return out;
}

int run_compare(const CompareFlags& f) {
  const Format format = format_for(f.fleet ? Content::fleet : Content::compare, f.format);
  if (!f.output.empty()) check_writable(f.output);
  double threshold = f.threshold_pct / 100;
  const TextStyle style = text_style(f.output);
  if (!f.expect.empty() && !f.fleet)
    throw UsageError("--expect needs --fleet: it names the hosts of a fleet");
  if (f.fleet) {
    FleetOptions opts{threshold,
                      f.expect.empty() ? std::vector<std::string>{} : parse_expected_hosts(f.expect)};
    const auto inputs = opts.expect.empty() ? f.inputs : inputs_with_reports(f.inputs);
    std::vector<UnreadableReport> unreadable;
    auto reports = inputs.empty() ? std::vector<NamedReport>{} : load_readable_reports(inputs, unreadable);
    for (const auto& u : unreadable)
      std::cerr << "mlbench: warning: left out, unreadable: " << u.error << "\n";
    auto fleet = analyze_fleet(reports, opts, unreadable);
    emit_rendered(f.output, render_fleet(reports, fleet, opts, format, style));
    // --no-fail forgives outliers, not nodes that are missing or failed their burn-in.
    bool nodes_fail = !fleet.missing.empty() || !fleet.failed_nodes.empty();
    return nodes_fail || (fleet.has_worse_outlier() && !f.no_fail) ? 1 : 0;
  }
  auto reports = load_reports(f.inputs);
  if (reports.size() < 2) throw UsageError("compare needs a base report and at least one other (or --fleet)");
  BetweenRuns between;
  if (!f.base_runs.empty()) {
    std::vector<NamedReport> runs = load_reports(f.base_runs);
    for (const auto& r : runs) {
      if (host_label(r) != host_label(reports[0])) {
        throw UsageError(
            fmt::format("--base-runs {}: a run of {}, not of the base's machine {}; give runs of "
                        "the base's machine only",
                        r.file, host_label(r), host_label(reports[0])));
      }
    }
    runs.insert(runs.begin(), reports[0]);
    between = BetweenRuns(runs);
  }
  CompareOptions opts{threshold, f.base_runs.empty() ? nullptr : &between};
  std::vector<Comparison> comparisons;
  for (std::size_t i = 1; i < reports.size(); ++i)
    comparisons.push_back(compare_reports(reports[0], reports[i], opts));
  bool regression = false;
  for (const auto& c : comparisons) regression = regression || c.has_regression();
  emit_rendered(f.output, render_compare(reports, comparisons, opts, format, style));
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
  cmd->add_option("--format", flags->format,
                  fmt::format("{}; with --fleet: {}", format_help(Content::compare),
                              fmt::join(format_names(Content::fleet), " | ")))
      ->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "Write to this file (atomically) instead of stdout");
  cmd->add_option("--threshold", flags->threshold_pct,
                  "Percent change that counts (a regression, or a fleet member this far below the median)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_flag(
      "--no-fail", flags->no_fail,
      "Exit 0 even when a regression or a bad outlier is found (a missing or failed node still fails)");
  cmd->add_option("--expect", flags->expect,
                  "With --fleet: the hosts that must report (HOSTS comma-separated, or @FILE one a line); a "
                  "missing one fails the fleet");
  cmd->add_option("--base-runs", flags->base_runs,
                  "More runs of the base's machine (repeatable): their spread between runs joins each "
                  "metric's noise band")
      ->allow_extra_args(false);
  cmd->callback([&action, flags] { action = [flags] { return run_compare(*flags); }; });
}

}  // namespace mlbench::cli
