// `mlbench nccl`: the NCCL collectives family. With no launcher environment it runs net.nccl in one process
// over every local GPU; started by mpirun/srun/torchrun/Kubernetes (one process per GPU) it joins the world
// through the bootstrap and rank 0 writes one merged cluster report (network/cluster.hpp).
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/registry.hpp"
#include "bench/signals.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "network/cluster.hpp"
#include "network/nccl_options.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {
namespace {

int run_multi_process(const net::LaunchInfo& launch, const Json& options, const net::NcclOptions& parsed,
                      const CommonRunFlags& flags) {
  Profile profile = profile_from_string(flags.profile);
  if (flags.dry_run) {
    std::cout << Json{{"probe", "net.nccl"},
                      {"launcher", net::to_string(launch.launcher)},
                      {"rank", launch.rank},
                      {"world_size", launch.world_size},
                      {"local_rank", launch.local_rank},
                      {"master", fmt::format("{}:{}", launch.master_addr, launch.master_port)},
                      {"profile", flags.profile},
                      {"options", options}}
                     .dump(2)
              << "\n";
    return 0;
  }
  net::ClusterRun run{options, profile, std::nullopt, argv(), builtin_host_info()};
  if (!flags.output.empty() && launch.rank == 0) {
    check_writable(flags.output);
    run.output = flags.output;
  }
  // Before the rendezvous: Ctrl-C ends every wait of it (network/bootstrap.hpp) with exit 130.
  SignalGuard guard;
  net::ClusterOutcome outcome;
  try {
    auto boot = net::make_bootstrap(launch, parsed.timeout_s);
    outcome = net::run_cluster(launch, *boot, run);
  } catch (const Interrupted&) {
    std::cerr << "mlbench: interrupted during the rendezvous of rank " << launch.rank << "\n";
    return 130;
  }
  if (outcome.rank == 0) {
    if (flags.json) {
      std::cout << to_json(outcome.report).dump(2) << "\n";
    } else {
      print_summary(std::cout, outcome.report, terminal_width(STDOUT_FILENO),
                    SummaryOptions{.exact = flags.verbose});
      if (run.output) std::cout << "cluster report written to " << run.output->string() << "\n";
    }
  }
  if (outcome.interrupted) {
    std::cerr << "mlbench: interrupted; the report holds the cases that finished\n";
    return 130;
  }
  return exit_code_for(outcome.report);
}

}  // namespace

void add_nccl_command(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("nccl",
                         "NCCL collectives: algbw/busbw per collective and size (one process over "
                         "all local GPUs, or one process per GPU under mpirun/srun/torchrun/Kubernetes)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, net::nccl_option_table());
  cmd->callback([&action, common, options] {
    action = [common, options] {
      Json opts = options();
      // Checked here, before availability: bad input is exit 2 even where NCCL cannot run.
      auto parsed = net::parse_nccl_options(opts, profile_from_string(common->profile));
      auto launch = net::parse_launch_env(net::process_env());
      if (!launch.multi_process()) return execute_family("net.nccl", opts, *common);
      return run_multi_process(launch, opts, parsed, *common);
    };
  });
}

}  // namespace mlbench::cli
