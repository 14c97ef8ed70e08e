// `mlbench burnin [--duration 30m] [--phases ...] [--baseline DIR|FILES] [-o report.json]`: sustained,
// verified load on every GPU, memory, drive and link, judged per GPU against its peers (burnin/). Exit 0 when
// every GPU and host phase passes (warn included), 1 on any fail or a phase stopped before one full verified
// pass (incomplete), 2 on bad input (a --duration too short for one pass of each phase included), 130 when
// interrupted (the report, with -o, holds the phases that ran).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "bench/registry.hpp"
#include "bench/runner.hpp"
#include "bench/signals.hpp"
#include "burnin/run.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "report/report.hpp"
#include "report/report_burnin.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {
namespace {

struct BurninFlags {
  std::string duration = "30m";
  std::vector<std::string> phases;
  std::vector<std::string> baseline;
  double warn_pct = 5;
  std::string scratch_dir = "/var/tmp";
  std::string storage_size = "1G";
  std::string cooldown = "60s";
  double host_memory_share = 0.5;
  std::string output;
};

burnin::BurninOptions options_from(const BurninFlags& f) {
  burnin::BurninOptions o;  // its start, now, is where --duration counts from
  o.duration_s = parse_duration(f.duration, "--duration");
  if (o.duration_s < 10)
    throw UsageError(fmt::format("--duration {}: give at least 10s (e.g. 30m)", f.duration));
  o.phases = burnin::parse_phases(f.phases);
  o.cooldown_max_s = parse_duration(f.cooldown, "--cooldown");
  if (f.warn_pct <= 0 || f.warn_pct >= 100)
    throw UsageError(fmt::format("--warn-pct {}: give a percentage between 0 and 100 (e.g. 5)", f.warn_pct));
  o.verdict.warn_pct = f.warn_pct;
  o.scratch_dir = f.scratch_dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(o.scratch_dir, ec))
    throw UsageError(fmt::format(
        "--scratch-dir {}: not a folder; give an existing folder on the drive to test", f.scratch_dir));
  o.storage_bytes = parse_size(f.storage_size, "--storage-size");
  if (o.storage_bytes < (1u << 20))
    throw UsageError(fmt::format("--storage-size {}: give at least 1M (e.g. 1G)", f.storage_size));
  if (f.host_memory_share <= 0 || f.host_memory_share > 0.9)
    throw UsageError(
        fmt::format("--host-memory-share {}: give a share of the available memory above 0 and at most "
                    "0.9 (e.g. 0.5)",
                    f.host_memory_share));
  o.host_memory_fraction = f.host_memory_share;
  o.argv = argv();
  return o;
}

int run_burnin_command(const BurninFlags& f) {
  const OutputKind output_kind = f.output.empty() ? OutputKind::file : check_writable(f.output);
  auto opts = options_from(f);
  burnin::BurninEnvironment env;
  env.host = builtin_host_info();
  if (!f.baseline.empty()) {
    // The baseline's fleet median of this node's GPU model.
    std::string gpu_name;
    if (const HostView host(env.host); !host.gpus.empty()) gpu_name = host.gpus[0].value("name", "");
    opts.verdict.baseline_median = burnin::baseline_medians(f.baseline, gpu_name);
  }
  env.phases = burnin::make_gpu_phases();
  for (auto& p : burnin::make_host_phases()) env.phases.push_back(std::move(p));
  std::string why;
  env.telemetry = burnin::make_nvml_telemetry(&why);
  if (!why.empty()) std::cerr << "mlbench burnin: no GPU telemetry: " << why << "\n";
  env.stop = &stop_flag();
  env.log = [](const std::string& line) { std::cerr << "mlbench burnin: " << line << std::endl; };
  SignalGuard guard;
  // As the runner does: a file is rewritten after every phase, so a crash keeps the phases that ran; a
  // stream (`-`, a FIFO, /dev/stdout) gets only the final report, as one document.
  const bool stream = !f.output.empty() && output_kind == OutputKind::stream;
  std::function<void(const Report&)> save;
  if (!f.output.empty() && !stream) save = [&f](const Report& r) { write_report(f.output, r); };
  const auto outcome = burnin::run_burnin(opts, env, save);
  if (stream) write_report(f.output, outcome.report);
  // `-o -`: the report is what stdout holds; the summary would break it, and the verdict goes to stderr.
  const bool report_on_stdout = f.output == "-";
  if (!report_on_stdout) print_summary(std::cout, outcome.report, terminal_width(STDOUT_FILENO));
  std::ostream& out = report_on_stdout ? std::cerr : std::cout;
  out << "verdict: " << burnin_report::verdict_banner(outcome.report.results) << "\n";
  for (const auto& reason : outcome.verdict.reasons) out << "  " << reason << "\n";
  for (const auto& g : outcome.verdict.gpus) {
    out << "  " << g.device << ": " << burnin_report::to_string(g.verdict) << "\n";
    for (const auto& reason : g.reasons) out << "    " << reason << "\n";
  }
  if (!f.output.empty() && !report_on_stdout) std::cout << "report written to " << f.output << "\n";
  if (outcome.interrupted) {
    std::cerr << (f.output.empty() ? "mlbench: interrupted; no report file written (no -o)\n"
                                   : "mlbench: interrupted; the report holds the phases that ran\n");
  }
  return outcome.exit_code();
}

}  // namespace

void add_burnin_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "burnin",
      "Burn in this node: sustained, verified load on every GPU, memory, drive and link "
      "with telemetry; each GPU judged against its peers (exit 0 pass, 1 fail or incomplete)");
  auto flags = std::make_shared<BurninFlags>();
  cmd->add_option("--duration", flags->duration,
                  "Total time, phases, cooldowns and the report together (e.g. 30m, 2h); refused when "
                  "one verified pass of each phase does not fit")
      ->default_str("30m");
  std::vector<std::string> names;
  for (const auto& row : burnin::kPhaseNames) names.emplace_back(row.name);
  cmd->add_option("--phases", flags->phases,
                  fmt::format("Phases to run, in order (default all: {})", fmt::join(names, ",")))
      ->delimiter(',');
  cmd->add_option("--baseline", flags->baseline,
                  "Earlier burn-in reports (files or folders): warn below their fleet median GPU");
  cmd->add_option("--warn-pct", flags->warn_pct,
                  "Warn when a GPU's sustained rate is this many percent below the node's median GPU or the "
                  "baseline")
      ->default_str("5");
  cmd->add_option("--scratch-dir", flags->scratch_dir,
                  "Folder for the storage phase's scratch file (created and removed by mlbench)")
      ->default_str("/var/tmp");
  cmd->add_option("--storage-size", flags->storage_size, "Size of the storage phase's scratch file")
      ->default_str("1G");
  cmd->add_option("--cooldown", flags->cooldown,
                  "Longest idle between phases (it ends earlier when the GPU temperatures settle)")
      ->default_str("60s");
  cmd->add_option("--host-memory-share", flags->host_memory_share,
                  "Share of the available host memory the hostmem phase tests (at least 1 GiB stays free)")
      ->default_str("0.5");
  cmd->add_option("-o,--output", flags->output,
                  "Write the report here: a file is rewritten after each phase; - (stdout) or a FIFO gets "
                  "the final report once");
  cmd->callback([&action, flags] { action = [flags] { return run_burnin_command(*flags); }; });
}

}  // namespace mlbench::cli
