// `mlbench export REPORT --format FORMAT`: a report for other tools, in each format that carries a report
// (reports/formats.hpp).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "reports/inputs.hpp"
#include "reports/writers.hpp"

namespace mlbench::cli {
namespace {

struct ExportFlags {
  std::string report;
  std::string format;
  std::string output;
};

int run_export(const ExportFlags& f) {
  const Format format = format_for(Content::report, f.format);
  if (!f.output.empty()) check_writable(f.output);
  emit_rendered(f.output, render_report(load_reports({f.report}), f.report, format));
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("export", fmt::format("Export a report in a format other tools read: {}",
                                                       format_list(Content::report)));
  auto flags = std::make_shared<ExportFlags>();
  cmd->add_option("report", flags->report, "The report to export")->required();
  cmd->add_option("--format", flags->format, format_help(Content::report))->required();
  cmd->add_option(
      "-o,--output", flags->output,
      "Write to this file atomically (e.g. /var/lib/node_exporter/textfile/mlbench.prom); default stdout");
  cmd->callback([&action, flags] { action = [flags] { return run_export(*flags); }; });
}

}  // namespace mlbench::cli
