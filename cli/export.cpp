// `mlbench export REPORT --format prometheus|html|fio`: a report for other tools.
#include "cli/commands.hpp"
#include "reports/fio_json.hpp"
#include "reports/html.hpp"
#include "reports/inputs.hpp"
#include "reports/prometheus.hpp"

namespace mlbench::cli {
namespace {

struct ExportFlags {
  std::string report;
  std::string format;
  std::string output;
};

int run_export(const ExportFlags& f) {
  if (!f.output.empty()) check_writable(f.output);
  auto reports = load_reports({f.report});
  if (f.format == "prometheus") {
    emit(f.output, to_prometheus(reports.front()));
  } else if (f.format == "fio") {
    emit(f.output, to_fio_json(reports.front().report, f.report).dump(2) + "\n");
  } else {
    HtmlPage page{"mlbench report: " + f.report, &reports, {}, std::nullopt, 0.05, std::nullopt};
    emit(f.output, to_html_page(page));
  }
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "export",
      "Export a report: Prometheus textfile-collector format (node_exporter), a self-contained HTML page or "
      "fio's JSON (its storage jobs)");
  auto flags = std::make_shared<ExportFlags>();
  cmd->add_option("report", flags->report, "The report to export")->required();
  cmd->add_option(
         "--format", flags->format,
         "prometheus | html | fio (the storage jobs in fio's JSON schema, for fio-plot and fio's readers)")
      ->check(CLI::IsMember({"prometheus", "html", "fio"}))
      ->required();
  cmd->add_option(
      "-o,--output", flags->output,
      "Write to this file atomically (e.g. /var/lib/node_exporter/textfile/mlbench.prom); default stdout");
  cmd->callback([&action, flags] { action = [flags] { return run_export(*flags); }; });
}

}  // namespace mlbench::cli
