#include "bench/cli/common.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "bench/signals.hpp"
#include "bench/sysinfo.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {
namespace {

std::vector<std::string>& argv_storage() {
  static std::vector<std::string> v;
  return v;
}

std::string format_eta(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
}

}  // namespace

void set_argv(int argc, char** argv) { argv_storage().assign(argv, argv + argc); }

const std::vector<std::string>& argv() { return argv_storage(); }

void add_common_run_flags(CLI::App& cmd, CommonRunFlags& flags) {
  cmd.add_option("-o,--output", flags.output, "Write the JSON report to this file (atomically)");
  cmd.add_option("--profile", flags.profile, "quick | default | full: how many cases and how long each runs")
      ->capture_default_str();
  cmd.add_flag("--dry-run", flags.dry_run,
               "Print the effective plan (cases, parameters, settings) as JSON and exit");
  cmd.add_flag("--json", flags.json, "Print the report as JSON on stdout instead of the summary table");
}

int execute(RunOptions opts, const CommonRunFlags& flags) {
  opts.profile = profile_from_string(flags.profile);
  opts.argv = argv();
  if (!flags.output.empty()) {
    check_writable(flags.output);
    opts.output = flags.output;
  }
  Registry registry = builtin_registry();  // outlives the runner, which keeps a reference
  Runner runner(registry, builtin_host_info());
  if (flags.dry_run) {
    std::vector<Result> skipped;
    auto cases = runner.plan(opts, skipped);
    Json plan = Json::array();
    for (const auto& pc : cases) {
      plan.push_back(Json{{"probe", pc.probe->info().id},
                          {"label", pc.c.label},
                          {"params", pc.c.params},
                          {"config", pc.c.config},
                          {"estimate_s", pc.c.estimate_s}});
    }
    for (const auto& r : skipped) plan.push_back(Json{{"probe", r.probe}, {"skipped", r.reason}});
    std::cout << Json{{"profile", flags.profile}, {"options", opts.probe_options}, {"cases", plan}}.dump(2)
              << "\n";
    return 0;
  }
  SignalGuard guard;
  bool tty = ::isatty(STDERR_FILENO) == 1;
  auto progress = [tty](const ProgressEvent& e) {
    if (!tty) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s  elapsed %s  ETA %s", e.index, e.total, e.probe.c_str(),
                 e.label.c_str(), format_eta(e.elapsed_s).c_str(), format_eta(e.eta_s).c_str());
    std::fflush(stderr);
  };
  Report report = runner.run(opts, progress);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (flags.json) {
    std::cout << to_json(report).dump(2) << "\n";
  } else {
    print_summary(std::cout, report);
    if (opts.output) std::cout << "report written to " << opts.output->string() << "\n";
  }
  if (runner.interrupted()) {
    std::cerr << "mlbench: interrupted; the report holds the cases that finished\n";
    return 130;
  }
  return exit_code_for(report);
}

int execute_family(const std::string& probe_id, nlohmann::json options, const CommonRunFlags& flags) {
  RunOptions opts;
  opts.probe_ids = {probe_id};
  opts.probe_options = Json{{probe_id, std::move(options)}};
  return execute(std::move(opts), flags);
}

}  // namespace mlbench::cli
