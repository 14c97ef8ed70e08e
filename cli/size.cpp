// `mlbench size`: a workload plus measured reports -> the procurement sizing sheet (sizing/planner.hpp).
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/paths.hpp"
#include "cli/commands.hpp"
#include "report/report.hpp"
#include "reports/inputs.hpp"
#include "reports/render.hpp"
#include "sizing/catalog.hpp"
#include "sizing/planner.hpp"
#include "sizing/sheet.hpp"

namespace mlbench::cli {
namespace {

struct SizeFlags {
  std::string workload;
  std::vector<std::string> reports;
  std::string hardware;
  double headroom = sizing::kDefaultHeadroom;
  std::optional<int> nodes;
  std::string prices;
  std::string format = "table";
  std::string output;
  std::string cooling;
  bool compare_cooling = false;
};

int run_size(const SizeFlags& f) {
  const Format format = format_for(f.compare_cooling ? Content::cooling : Content::sizing_sheet, f.format);
  sizing::check_sheet_output(format, !f.output.empty());
  if (!f.output.empty()) check_writable(f.output);

  sizing::PlanRequest req;
  req.workload = sizing::load_workload(f.workload);
  for (const auto& r : f.reports) req.reports.push_back(load_report(r));
  req.hardware = f.hardware;
  req.headroom = f.headroom;
  if (f.nodes) {
    if (*f.nodes < 1) throw UsageError(fmt::format("--nodes {}: give a node count of at least 1", *f.nodes));
    req.nodes = *f.nodes;
  }
  if (!f.prices.empty()) req.prices = sizing::load_prices(f.prices);
  auto catalog = sizing::load_hardware_catalog(config_dir() / "hardware");
  if (!f.cooling.empty()) {
    try {
      req.cooling = catalog.cooling_spec(f.cooling).name;
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--cooling: {}", e.what()));
    }
  }
  if (f.compare_cooling) {
    if (!f.cooling.empty())
      throw UsageError("--compare-cooling plans every cooling option: leave out --cooling");
    auto compared = sizing::cooling_comparison(sizing::plan_each_cooling(req, catalog));
    for (const auto& w : compared.list) std::cerr << "mlbench: warning: " << w << "\n";
    emit(f.output, render(compared, format));
    return 0;
  }
  auto sheet = sizing::plan(req, catalog);

  for (const auto& w : sheet.warnings) std::cerr << "mlbench: warning: " << w << "\n";
  // Through the one atomic writer (temp file, fsync, rename): an error or a signal leaves no partial file.
  emit(f.output, sizing::render_sheet(sheet, format));
  return 0;
}

}  // namespace

void add_size_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "size",
      "Size nodes, storage, fabric, power and cost for a workload from measured reports (sizing sheet)");
  auto flags = std::make_shared<SizeFlags>();
  cmd->add_option("--workload", flags->workload, "Workload YAML (configs/workloads/*.yaml)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--report", flags->reports, "Measured report JSON to calibrate from (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--hardware", flags->hardware,
      "Node template of configs/hardware/nodes.yaml (default: the measured node, else the workload's)");
  cmd->add_option("--headroom", flags->headroom,
                  fmt::format("Headroom per resource, 0-{:g} ({:g}-{:g} recommended)", sizing::kMaxHeadroom,
                              sizing::kRecommendedHeadroomMin, sizing::kRecommendedHeadroomMax))
      ->capture_default_str();
  cmd->add_option("--nodes", flags->nodes,
                  "Forward planning: predict for this many nodes instead of a deadline");
  cmd->add_option("--prices", flags->prices, "Prices YAML overriding the shipped example prices")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", flags->format,
                  fmt::format("{}; with --compare-cooling: {}", format_help(Content::sizing_sheet),
                              fmt::join(format_names(Content::cooling), " | ")))
      ->capture_default_str();
  cmd->add_option("--cooling", flags->cooling,
                  "Cooling option of configs/hardware/cooling.yaml (air, liquid, phase-change; default: the "
                  "node template's)");
  cmd->add_flag("--compare-cooling", flags->compare_cooling,
                "Plan the workload once per cooling option and print one table: power, PUE, stability, "
                "goodput, time, energy and cost per option");
  cmd->add_option("-o,--output", flags->output,
                  "Write the sheet to this file (atomically) instead of stdout");
  cmd->callback([&action, flags] { action = [flags] { return run_size(*flags); }; });
}

}  // namespace mlbench::cli
